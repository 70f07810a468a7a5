//! What the PostgreSQL tests share.

/// The server to use, or `None` (the test is skipped, loudly) when none was
/// started; with `SDSI_REQUIRE_POSTGRES` set (CI), a missing server fails.
pub fn server() -> Option<String> {
    server_from("SDSI_TEST_POSTGRES")
}

/// The same for the TLS-only server `scripts/with-postgres.sh` also starts.
pub fn tls_server() -> Option<String> {
    server_from("SDSI_TEST_POSTGRES_TLS")
}

fn server_from(variable: &str) -> Option<String> {
    match std::env::var(variable) {
        Ok(params) => Some(params),
        Err(_) if std::env::var_os("SDSI_REQUIRE_POSTGRES").is_some() => {
            panic!(
                "SDSI_REQUIRE_POSTGRES is set but {variable} is not: run through scripts/with-postgres.sh"
            )
        }
        Err(_) => {
            eprintln!("skipped: no {variable} server (run through scripts/with-postgres.sh)");
            None
        }
    }
}
