//! Background work as claimed jobs: which due job a claim takes (a person's first, then
//! each account's oldest before any account's second), that a held job is nobody else's
//! until its lease lapses, that instances claiming at once never take the same job, that
//! one account can leave only a few games to the bots alone, and that a bot move gives its
//! job back whether it was appended or discarded.

use std::collections::BTreeSet;

use rand::RngCore;
use serde_json::json;
use turnpost::auth::AuthUser;
use turnpost::games::bots::{choose_action, BotStrategy};
use turnpost::games::{GameRules, Table};
use turnpost::service::fold_cache::FoldCache;
use turnpost::service::lobby::{self, NewGame};
use turnpost::service::now_millis;
use turnpost::service::referee::{self, BotMove};
use turnpost::store::jobs::{self, Claim, ClaimedJob, JobKind};
use turnpost::store::{Db, StoreError};

use crate::util::{account, no_background_work, Backend, TestApp};
use crate::with_each_backend;

/// An open game of `creator`'s, its id.
fn open_game(db: &Db, creator: &AuthUser) -> String {
    let request = NewGame {
        kind: "tikal".into(),
        seats: 2,
        options: json!({}),
        ..NewGame::default()
    };
    lobby::create_game(db, creator, &request, 100, 0)
        .unwrap()
        .game
        .id
}

/// Makes a bot job of `game` due at `due_at`.
fn bot_job(app: &TestApp, game: &str, account: &AuthUser, due_at: i64, interactive: bool) {
    app.execute_sql(&format!(
        "INSERT INTO jobs (kind, game_id, account_id, due_at, interactive) \
         VALUES ('bot', '{game}', '{}', {due_at}, {interactive})",
        account.account_id
    ));
}

fn claim_at(db: &Db, owner: &str, now: i64, people_only: bool) -> Option<ClaimedJob> {
    let claim = Claim {
        kind: JobKind::Bot,
        owner,
        now,
        due_by: now,
        lease_until: now + 1_000,
        interactive_only: people_only,
    };
    db.write(|conn| jobs::claim(conn, &claim)).unwrap()
}

/// Claims come in the order: a person's game first, then each account's oldest due job,
/// then each account's second; held jobs are skipped until their lease lapses.
async fn claims_take_turns(app: &TestApp) {
    let db = Db::open(app.database_url()).unwrap();
    let (ada, bo) = (account(&db, "ada"), account(&db, "bo"));
    let ada_games: Vec<String> = (0..4).map(|_| open_game(&db, &ada)).collect();
    let bo_game = open_game(&db, &bo);
    bot_job(app, &ada_games[0], &ada, 100, false);
    bot_job(app, &ada_games[1], &ada, 200, false);
    bot_job(app, &ada_games[2], &ada, 300, false);
    bot_job(app, &bo_game, &bo, 250, false);
    bot_job(app, &ada_games[3], &ada, 400, true);
    let order: Vec<String> = std::iter::from_fn(|| claim_at(&db, "one", 1_000, false))
        .map(|job| job.game_id)
        .collect();
    assert_eq!(
        order,
        [
            ada_games[3].clone(),
            ada_games[0].clone(),
            bo_game.clone(),
            ada_games[1].clone(),
            ada_games[2].clone()
        ]
    );
    assert_eq!(claim_at(&db, "two", 1_500, false), None, "all held");
    let retaken = claim_at(&db, "two", 2_500, true).expect("a lapsed lease");
    assert_eq!(retaken.game_id, ada_games[3]);
    assert!(retaken.interactive);
    assert_eq!(
        claim_at(&db, "two", 2_500, true),
        None,
        "only a person's game"
    );
    // A held job that had nothing to do ends, unless its game gave it new work since.
    db.write(|conn| jobs::finish(conn, JobKind::Bot, &retaken, "two"))
        .unwrap();
    let again = claim_at(&db, "three", 2_600, false).expect("another lapsed lease");
    bot_job_due_again(app, &again.game_id, 2_550);
    db.write(|conn| jobs::finish(conn, JobKind::Bot, &again, "three"))
        .unwrap();
    let due: BTreeSet<String> = std::iter::from_fn(|| claim_at(&db, "four", 5_000, false))
        .map(|job| job.game_id)
        .collect();
    assert!(!due.contains(&ada_games[3]), "the finished job is gone");
    assert!(due.contains(&again.game_id), "new work keeps its job");
    assert_eq!(due.len(), 4);
}

fn bot_job_due_again(app: &TestApp, game: &str, due_at: i64) {
    app.execute_sql(&format!(
        "UPDATE jobs SET due_at = {due_at} WHERE kind = 'bot' AND game_id = '{game}'"
    ));
}

/// Eight claimers at once (eight instances, say) take forty jobs between them, each exactly
/// once.
async fn concurrent_claims_never_share_a_job(app: &TestApp) {
    let db = std::sync::Arc::new(Db::open(app.database_url()).unwrap());
    let creators: Vec<AuthUser> = (0..4).map(|n| account(&db, &format!("c{n}"))).collect();
    let mut expected = BTreeSet::new();
    for n in 0..40 {
        let creator = &creators[n % creators.len()];
        let game = open_game(&db, creator);
        bot_job(app, &game, creator, n as i64, n % 3 == 0);
        expected.insert(game);
    }
    let claimers: Vec<_> = (0..8)
        .map(|claimer| {
            let db = db.clone();
            std::thread::spawn(move || {
                let owner = format!("claimer-{claimer}");
                std::iter::from_fn(|| claim_at(&db, &owner, 1_000, false))
                    .map(|job| job.game_id)
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let claimed: Vec<String> = claimers
        .into_iter()
        .flat_map(|claimer| claimer.join().unwrap())
        .collect();
    let distinct: BTreeSet<String> = claimed.iter().cloned().collect();
    assert_eq!(claimed.len(), distinct.len(), "no job claimed twice");
    assert_eq!(distinct, expected, "every job claimed");
}

async fn claims_take_turns_without_workers(backend: Backend) {
    let app = TestApp::start_with(backend, no_background_work).await;
    claims_take_turns(&app).await;
}

async fn concurrent_claims_without_workers(backend: Backend) {
    let app = TestApp::start_with(backend, no_background_work).await;
    concurrent_claims_never_share_a_job(&app).await;
}

with_each_backend!(
    claims_take_turns_without_workers,
    concurrent_claims_without_workers,
    games_left_to_bots_are_capped,
    a_bot_move_gives_its_job_back_even_when_discarded,
);

/// The game's bot job as `lease owner` (`-` for none), `None` when it has none; and how
/// many actions its log holds.
fn bot_job_and_actions(db: &Db, game: &str) -> (Option<String>, usize) {
    let job = db
        .read(|conn| {
            use diesel::prelude::*;
            use turnpost::store::schema::jobs::dsl as j;
            j::jobs
                .filter(j::kind.eq("bot"))
                .filter(j::game_id.eq(game))
                .select(j::lease_owner)
                .first::<Option<String>>(conn)
                .optional()
                .map_err(StoreError::from)
        })
        .unwrap()
        .map(|owner| owner.unwrap_or_else(|| "-".into()));
    let actions = db
        .read(|conn| turnpost::store::load_actions(conn, game))
        .unwrap()
        .len();
    (job, actions)
}

/// A bot move on the game as the bot read it is appended, and its job goes back, due again
/// (the other bot moves next); one decided while another writer moved the game on is
/// thrown away, and its job goes back all the same, for the move to be thought anew.
async fn a_bot_move_gives_its_job_back_even_when_discarded(backend: Backend) {
    let app = TestApp::start_with(backend, |config| {
        no_background_work(config);
        config.bot_workers = Some(0);
    })
    .await;
    let db = Db::open(app.database_url()).unwrap();
    let ada = account(&db, "ada");
    let request = NewGame {
        kind: "tikal".into(),
        seats: 3,
        options: json!({}),
        bots: vec![(0, BotStrategy::Random), (1, BotStrategy::Random)],
        ..NewGame::default()
    };
    let game = lobby::create_game(&db, &ada, &request, 100, now_millis())
        .unwrap()
        .game
        .id;
    let cache = FoldCache::new(16, 1 << 24);
    let claim = || claim_at(&db, "instance-a", now_millis() + 1_000, false).expect("due");
    let thinks = |moves_the_game_on: bool| {
        let (app, game) = (&app, game.clone());
        move |bot: BotStrategy,
              rules: &dyn GameRules,
              table: &dyn Table,
              seat,
              rng: &mut dyn RngCore| {
            if moves_the_game_on {
                // Stands for another writer's append while the bot thinks.
                app.execute_sql(&format!(
                    "UPDATE games SET current_seq = current_seq + 1 WHERE id = '{game}'"
                ));
            }
            choose_action(bot, rules, table, seat, rng)
        }
    };
    assert_eq!(bot_job_and_actions(&db, &game), (Some("-".into()), 0));

    let job = claim();
    assert_eq!(job.game_id, game);
    assert_eq!(
        bot_job_and_actions(&db, &game).0.as_deref(),
        Some("instance-a")
    );
    let played =
        referee::play_bot_move(&db, &cache, &job, "instance-a", &thinks(false), now_millis)
            .unwrap();
    assert!(matches!(played, BotMove::Appended(_)));
    assert_eq!(bot_job_and_actions(&db, &game), (Some("-".into()), 1));

    let job = claim();
    let played =
        referee::play_bot_move(&db, &cache, &job, "instance-a", &thinks(true), now_millis).unwrap();
    assert!(matches!(played, BotMove::Discarded));
    assert_eq!(bot_job_and_actions(&db, &game), (Some("-".into()), 1));
    assert_eq!(claim().game_id, game, "due again");
}

/// An account may leave one running game to the bots alone here: resigning from a second
/// such game is refused with 409 `bot_games_quota`, resigning where the game ends is not,
/// and once the first game ends the second resignation goes through.
async fn games_left_to_bots_are_capped(backend: Backend) {
    // No bot moves at first, so the first game left to the bots stays running.
    let app = TestApp::start_with(backend, |config| {
        config.bot_games_per_account = 1;
        config.bot_workers = Some(0);
    })
    .await;
    let ada = app.register("ada").await;
    let bot_game = |seats: u8| {
        let bots: Vec<_> = (1..seats)
            .map(|seat| json!({"seat": seat, "strategy": "random"}))
            .collect();
        json!({"kind": "tikal", "seats": seats, "bots": bots})
    };
    let mut games = Vec::new();
    for _ in 0..2 {
        let created = app.post(&ada, "/v1/games", &bot_game(3)).await;
        games.push(
            created.expect_status(201).json()["id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    app.post(&ada, &format!("/v1/games/{}/resign", games[0]), &json!({}))
        .await
        .expect_status(200);
    app.post(&ada, &format!("/v1/games/{}/resign", games[1]), &json!({}))
        .await
        .expect_problem(409, "bot_games_quota");
    // A two-seat game ends with the resignation: nothing is left to the bots.
    let two = app.post(&ada, "/v1/games", &bot_game(2)).await.json();
    let resigned = app
        .post(
            &ada,
            &format!("/v1/games/{}/resign", two["id"].as_str().unwrap()),
            &json!({}),
        )
        .await
        .expect_status(200)
        .json();
    assert_eq!(resigned["status"], "finished");
    // With bots moving again, they finish the first game; then the second may be left to
    // them too.
    let app = app
        .restart_with(|config| config.bot_games_per_account = 1)
        .await;
    let mut finished = false;
    for _ in 0..1_200 {
        let summary = app
            .get(&ada, &format!("/v1/games/{}", games[0]))
            .await
            .json();
        if summary["status"] == "finished" {
            finished = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(finished, "the bots finished the game they were left");
    app.post(&ada, &format!("/v1/games/{}/resign", games[1]), &json!({}))
        .await
        .expect_status(200);
}
