//! What the CLI keeps in the state file beside the saved state: the
//! report's history (`evolve --state` writes it, `report --state` reads it)
//! and the log cursor (`evolve --state` resumes from it).

use sdsi_report::History;
use sdsi_sqlite::SqliteState;

use crate::log_cursor::Cursor;

/// The attachment's name in the state file.
const ATTACHMENT: &str = "report_history";

/// The log cursor's attachment.
const CURSOR: &str = "log_cursor";

/// The history saved for `scenario`; an empty one when none was (a state
/// written before reports existed).
pub fn load(db: &mut SqliteState, scenario: &str) -> Result<History, String> {
    match db
        .attachment(scenario, ATTACHMENT)
        .map_err(|e| e.to_string())?
    {
        None => Ok(History::new()),
        Some(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| format!("the saved report history does not read: {e}")),
    }
}

/// Saves `history` for `scenario`.
pub fn save(db: &mut SqliteState, scenario: &str, history: &History) -> Result<(), String> {
    let bytes = serde_json::to_vec(history).map_err(|e| e.to_string())?;
    db.save_attachment(scenario, ATTACHMENT, &bytes)
        .map_err(|e| e.to_string())
}

/// The log cursor saved for `scenario` (`None` for a state saved before
/// cursors were tied to their log).
pub fn load_cursor(db: &mut SqliteState, scenario: &str) -> Result<Option<Cursor>, String> {
    match db.attachment(scenario, CURSOR).map_err(|e| e.to_string())? {
        None => Ok(None),
        Some(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| format!("the saved log cursor does not read: {e}")),
    }
}

/// Saves the log cursor for `scenario`.
pub fn save_cursor(db: &mut SqliteState, scenario: &str, cursor: &Cursor) -> Result<(), String> {
    let bytes = serde_json::to_vec(cursor).map_err(|e| e.to_string())?;
    db.save_attachment(scenario, CURSOR, &bytes)
        .map_err(|e| e.to_string())
}
