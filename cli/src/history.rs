//! What the CLI keeps in the state file beside the saved state: the
//! report's history (`evolve --state` writes it, `report --state` reads it)
//! and the log cursor (`evolve --state` resumes from it).

use sdsi_postgres::PgState;
use sdsi_report::History;
use sdsi_sqlite::SqliteState;

use crate::log_cursor::Cursor;

/// A database that keeps named bytes beside a scenario's state.
pub trait Attachments {
    /// The bytes kept under `name`, if any.
    fn attachment(&mut self, scenario: &str, name: &str) -> Result<Option<Vec<u8>>, String>;
    /// Keeps `bytes` under `name`.
    fn save_attachment(&mut self, scenario: &str, name: &str, bytes: &[u8]) -> Result<(), String>;
}

impl Attachments for SqliteState {
    fn attachment(&mut self, scenario: &str, name: &str) -> Result<Option<Vec<u8>>, String> {
        SqliteState::attachment(self, scenario, name).map_err(|e| e.to_string())
    }
    fn save_attachment(&mut self, scenario: &str, name: &str, bytes: &[u8]) -> Result<(), String> {
        SqliteState::save_attachment(self, scenario, name, bytes).map_err(|e| e.to_string())
    }
}

impl Attachments for PgState {
    fn attachment(&mut self, scenario: &str, name: &str) -> Result<Option<Vec<u8>>, String> {
        PgState::attachment(self, scenario, name).map_err(|e| e.to_string())
    }
    fn save_attachment(&mut self, scenario: &str, name: &str, bytes: &[u8]) -> Result<(), String> {
        PgState::save_attachment(self, scenario, name, bytes).map_err(|e| e.to_string())
    }
}

/// The attachment's name in the state file.
const ATTACHMENT: &str = "report_history";

/// The log cursor's attachment.
const CURSOR: &str = "log_cursor";

/// The history saved for `scenario`; an empty one when none was (a state
/// written before reports existed).
pub fn load(db: &mut impl Attachments, scenario: &str) -> Result<History, String> {
    match db.attachment(scenario, ATTACHMENT)? {
        None => Ok(History::new()),
        Some(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| format!("the saved report history does not read: {e}")),
    }
}

/// Saves `history` for `scenario`.
pub fn save(db: &mut impl Attachments, scenario: &str, history: &History) -> Result<(), String> {
    db.save_attachment(scenario, ATTACHMENT, &to_bytes(history)?)
}

/// `history` as saved, with the attachment's name (for a save that writes
/// it in the state's own transaction).
pub fn to_attachment(history: &History) -> Result<(&'static str, Vec<u8>), String> {
    Ok((ATTACHMENT, to_bytes(history)?))
}

fn to_bytes(history: &History) -> Result<Vec<u8>, String> {
    serde_json::to_vec(history).map_err(|e| e.to_string())
}

/// The log cursor saved for `scenario` (`None` for a state saved before
/// cursors were tied to their log).
pub fn load_cursor(db: &mut impl Attachments, scenario: &str) -> Result<Option<Cursor>, String> {
    match db.attachment(scenario, CURSOR)? {
        None => Ok(None),
        Some(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| format!("the saved log cursor does not read: {e}")),
    }
}

/// Saves the log cursor for `scenario`.
pub fn save_cursor(
    db: &mut impl Attachments,
    scenario: &str,
    cursor: &Cursor,
) -> Result<(), String> {
    let bytes = serde_json::to_vec(cursor).map_err(|e| e.to_string())?;
    db.save_attachment(scenario, CURSOR, &bytes)
}
