//! How fast the lobby lists games when the database holds many: 10,000 running games, one
//! account sitting in 2,000 of them and due to act in 1,000. `GET /v1/games` must filter
//! and page in the database, so a page costs the same whatever the total.
//!
//! `cargo bench --bench lobby` runs it on a temporary SQLite file, and also on PostgreSQL
//! when `BENCH_DATABASE_URL` names a database it may fill (use a throwaway one). It prints
//! the time per listing and exits non-zero if a page of `my_turn` takes over 50 ms.

use std::time::{Duration, Instant};

use serde_json::json;
use turnpost::auth::AuthUser;
use turnpost::service::lobby::{self, GameQuery};
use turnpost::service::{Game, GameStatus};
use turnpost::store::{self, Account, Append, Db, GameListPosition, GameListStart, SeatRow};

const GAMES: usize = 10_000;
const ACCOUNTS: usize = 100;
const TARGET: Duration = Duration::from_millis(50);

fn account(index: usize) -> Account {
    Account {
        id: format!("acct{index:04}"),
        name: format!("player{index}"),
        name_key: format!("player{index}"),
        password_hash: "not a real hash".into(),
        created_at: 0,
        token_generation: 0,
        last_seen_day: None,
    }
}

/// Game `index` seats the bench's account (0) in every fifth game, due to act in every
/// tenth; the other seats go round the other accounts.
fn fill(db: &Db) {
    db.write(|conn| {
        for index in 0..ACCOUNTS {
            store::insert_account(conn, &account(index))?;
        }
        for index in 0..GAMES {
            let id = format!("game{index:05}");
            let first = if index % 5 == 0 {
                0
            } else {
                1 + index % (ACCOUNTS - 1)
            };
            let second = 1 + (index + 1) % (ACCOUNTS - 1);
            let game = Game {
                id: id.clone(),
                kind: "tikal".into(),
                rules_version: 1,
                options: json!({"auction": false}),
                seat_count: 2,
                status: GameStatus::Open,
                seed: [0; 32],
                created_by: account(first).id,
                created_at: index as i64,
                updated_at: index as i64,
                current_seq: 0,
                to_act: Vec::new(),
                outcome: None,
                time_control: Default::default(),
                visibility: turnpost::service::Visibility::Public,
                cancel_reason: None,
                settings: Default::default(),
                title: None,
            };
            let seat = |seat: i32, who: usize| SeatRow {
                game_id: id.clone(),
                seat,
                account_id: Some(account(who).id),
                joined_at: index as i64,
                bot: None,
            };
            store::insert_game(conn, &game, &[seat(0, first)])?;
            store::take_seat(conn, &seat(1, second))?;
            let to_act = if index % 10 == 0 { vec![0] } else { vec![1] };
            store::append(
                conn,
                &Append {
                    game_id: id,
                    kind: "tikal".into(),
                    previous_status: GameStatus::Open,
                    previous_to_act: Vec::new(),
                    acting_seat: None,
                    expected_seq: 0,
                    events: Vec::new(),
                    status: GameStatus::Running,
                    to_act,
                    outcome: None,
                    now: index as i64,
                    action: None,
                    seat_updates: Vec::new(),
                    listeners: Vec::new(),
                    created_by: account(first).id,
                    work_before: Default::default(),
                    work_after: Default::default(),
                },
            )?;
        }
        Ok::<(), store::StoreError>(())
    })
    .expect("fill the database");
}

fn caller() -> AuthUser {
    AuthUser {
        account_id: account(0).id,
        name: account(0).name,
        token_generation: 0,
        credential: turnpost::auth::Credential::SignIn,
    }
}

fn time(label: &str, db: &Db, query: &GameQuery, expected: usize) -> Duration {
    let caller = caller();
    let rounds = 50;
    let started = Instant::now();
    for _ in 0..rounds {
        let page = lobby::list_games(db, &caller, query).expect("list");
        assert_eq!(page.len(), expected, "{label}");
    }
    let each = started.elapsed() / rounds;
    println!("  {label:<40} {:>8.2} ms", each.as_secs_f64() * 1000.0);
    each
}

fn bench(backend: &str, db: &Db) -> bool {
    println!("{backend}: {GAMES} games");
    let page = |mine, my_turn, start| GameQuery {
        mine,
        my_turn,
        invited: false,
        limit: 50,
        start,
        ..GameQuery::default()
    };
    let my_turn = time(
        "my_turn=true, first page",
        db,
        &page(true, true, GameListStart::First),
        50,
    );
    time(
        "my_turn=true, last page (offset)",
        db,
        &page(true, true, GameListStart::Offset(950)),
        50,
    );
    time(
        "mine=true, first page",
        db,
        &page(true, false, GameListStart::First),
        50,
    );
    time(
        "all games, page 100 (offset)",
        db,
        &page(false, false, GameListStart::Offset(5_000)),
        50,
    );
    // The same page by cursor: after the position of the game before it.
    let before = lobby::list_games(
        db,
        &caller(),
        &page(false, false, GameListStart::Offset(4_999)),
    )
    .expect("list");
    let after = GameListPosition {
        deadline: None,
        updated_at: before[0].game.updated_at,
        id: before[0].game.id.clone(),
    };
    time(
        "all games, page 100 (cursor)",
        db,
        &page(false, false, GameListStart::After(after)),
        50,
    );
    my_turn <= TARGET
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sqlite = Db::open(&dir.path().join("bench.sqlite").to_string_lossy()).expect("sqlite");
    fill(&sqlite);
    let mut ok = bench("sqlite", &sqlite);
    if let Ok(url) = std::env::var("BENCH_DATABASE_URL") {
        let postgres = Db::open(&url).expect("postgres");
        fill(&postgres);
        ok &= bench("postgres", &postgres);
    }
    if !ok {
        eprintln!(
            "a page of my_turn took longer than {} ms",
            TARGET.as_millis()
        );
        std::process::exit(1);
    }
}
