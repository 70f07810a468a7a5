//! The report's history, kept in the state file beside the saved state
//! (`evolve --state` writes it, `report --state` reads it).

use sdsi_report::History;
use sdsi_sqlite::SqliteState;

/// The attachment's name in the state file.
const ATTACHMENT: &str = "report_history";

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
