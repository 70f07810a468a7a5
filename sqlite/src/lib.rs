//! SQLite storage for an sdsi server's state.
//!
//! One file holds, per scenario, a [`SavedServer`]: the [`SchemaStore`]
//! (patches, queue, lifecycle and metrics) and the evolution engine's
//! [`EvolutionState`] (pools, heat, gate counts), each in its versioned serde
//! form, with a cursor the application may use to say how far it got (the
//! CLI keeps the last log line it replayed), and named attachments the
//! application keeps beside it, saved in the state's own transaction when
//! they must match it ([`SqliteState::save_with_attachments`]: the CLI's
//! log cursor and report history). [`SqliteState`] implements the
//! core's [`StateStorage`] trait. The database runs in WAL mode with full
//! synchronisation, so a save either happened completely or not at all,
//! whenever the process dies.
//!
//! [`SqliteState::save`] also keeps the store as rows (`sdsi_patch`,
//! `sdsi_key_record`, `sdsi_pending`, `sdsi_delivered`: see
//! [`sdsi::patch::StoreRows`]),
//! rewriting only those that changed, so patches, key records and pending
//! proposals can be read ([`SqliteState::store_rows`]) or queried with SQL
//! without loading the pools.
//!
//! Saves are guarded by optimistic concurrency: each save names the version
//! it read, and a save over a newer version (another writer got there
//! first) is refused with [`Error::Conflict`] instead of overwriting it.
//!
//! [`SavedServer`]: sdsi::evolution::SavedServer
//! [`SchemaStore`]: sdsi::SchemaStore
//! [`EvolutionState`]: sdsi::evolution::EvolutionState
//! [`StateStorage`]: sdsi::evolution::StateStorage
//!
//! ```
//! use sdsi::evolution::Evolution;
//! use sdsi::patch::LifecyclePolicy;
//! use sdsi::{SchemaStore, SchemaTemplate};
//! use sdsi_sqlite::SqliteState;
//!
//! let template: SchemaTemplate = serde_json::from_str(
//!     r#"{"schema_id": "s", "scenario": "booking", "keys": []}"#,
//! )?;
//! let dir = std::env::temp_dir().join(format!("sdsi-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let mut db = SqliteState::open(dir.join("state.db"))?;
//! let store = SchemaStore::new(template, LifecyclePolicy::default())?;
//! let engine = Evolution::default();
//! let version = db.save("booking", None, 0, &store, &engine.state())?;
//! let saved = db.load("booking")?.expect("just saved");
//! assert_eq!(saved.version, version);
//! // A second save from the same version is refused: someone saved since.
//! let stale = db.save("booking", None, 0, &store, &engine.state());
//! assert!(matches!(stale, Err(sdsi_sqlite::Error::Conflict { .. })));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod migrate;
mod pool_rows;
mod rows;
mod state;

pub use error::Error;
pub use migrate::SCHEMA_VERSION;
pub use state::{Saved, SqliteState};
