//! The README's game: two accounts play a whole game of Tikal, each seat taking its first
//! legal action. Run it against a server: `cargo run -p turnpost-client --example
//! play_tikal -- http://127.0.0.1:8080` (the account names must still be free).

use turnpost_client::{Client, GameStatus};
use turnpost_games::tikal::{Tikal, TikalOptions};

// README begin
pub async fn play(server: &str) -> Result<(), turnpost_client::Error> {
    let anonymous = Client::new(server);
    let alice = anonymous.register("alice", "s3cret-pass").await?;
    let bob = anonymous.register("bob", "s3cret-pass").await?;
    let game = alice
        .create_game::<Tikal>(2, TikalOptions::default())
        .await?;
    bob.game::<Tikal>(game.id()).join(None).await?;
    let seats = [alice, bob];
    loop {
        let summary = game.summary().await?;
        if summary.status == GameStatus::Finished {
            println!(
                "places: {:?}",
                summary.outcome.map(|outcome| outcome.places)
            );
            return Ok(());
        }
        let seat = usize::from(summary.to_act[0]);
        let mine = seats[seat].game::<Tikal>(game.id());
        let legal = mine.legal_actions().await?;
        mine.act(legal.seq, &legal.actions[0]).await?;
    }
}
// README end

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), turnpost_client::Error> {
    let server = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "http://127.0.0.1:8080".to_owned());
    play(&server).await
}
