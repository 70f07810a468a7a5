//! What the CLI keeps in the state file beside the saved state: the
//! report's history (`evolve --state` writes it, `report --state` reads it)
//! and the log cursor (`evolve --state` resumes from it).

use sdsi_postgres::PgState;
use sdsi_report::History;
use sdsi_sqlite::SqliteState;

use crate::log_cursor::Cursor;

/// A database that keeps named bytes beside a scenario's state. They are
/// written only with the state, in its transaction (`save_with_attachments`,
/// `save_folded`), so they always match it.
pub trait Attachments {
    /// The bytes kept under `name`, if any.
    fn attachment(&mut self, scenario: &str, name: &str) -> Result<Option<Vec<u8>>, String>;
}

impl Attachments for SqliteState {
    fn attachment(&mut self, scenario: &str, name: &str) -> Result<Option<Vec<u8>>, String> {
        SqliteState::attachment(self, scenario, name).map_err(|e| e.to_string())
    }
}

impl Attachments for PgState {
    fn attachment(&mut self, scenario: &str, name: &str) -> Result<Option<Vec<u8>>, String> {
        PgState::attachment(self, scenario, name).map_err(|e| e.to_string())
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

/// `history` as saved, with the attachment's name (for a save that writes
/// it in the state's own transaction).
pub fn to_attachment(history: &History) -> Result<(&'static str, Vec<u8>), String> {
    Ok((ATTACHMENT, to_bytes(history)?))
}

fn to_bytes(history: &History) -> Result<Vec<u8>, String> {
    serde_json::to_vec(history).map_err(|e| e.to_string())
}

/// The log cursor saved for `scenario` (`None` when none was: a state
/// saved by another command, or before cursors were tied to their log).
pub fn load_cursor(db: &mut impl Attachments, scenario: &str) -> Result<Option<Cursor>, String> {
    match db.attachment(scenario, CURSOR)? {
        None => Ok(None),
        Some(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| format!("the saved log cursor does not read: {e}")),
    }
}

/// `cursor` as saved, with the attachment's name (written in the state's
/// own transaction, so it always matches the state's line count).
pub fn cursor_attachment(cursor: &Cursor) -> Result<(&'static str, Vec<u8>), String> {
    let bytes = serde_json::to_vec(cursor).map_err(|e| e.to_string())?;
    Ok((CURSOR, bytes))
}
