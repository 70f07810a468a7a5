//! Serves the table-booking agent on 127.0.0.1:3000.

use std::error::Error;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, sdsi_axum_example::app()?).await?;
    Ok(())
}
