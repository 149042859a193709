//! The cache of folded states never changes an answer: whole games of every kind are played
//! through the services with two caches standing for two server instances on one database
//! (each acting in turn, so each often lags behind the other), and at every step each one's
//! views and legal actions equal those of a fold from scratch.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use turnpost::auth::AuthUser;
use turnpost::games::engine::Seat;
use turnpost::games::server_events::TimeControl;
use turnpost::service::actions::{self, ActionRequest};
use turnpost::service::fold_cache::FoldCache;
use turnpost::service::lobby::{self, NewGame};
use turnpost::service::play::{self, ActionFilter};
use turnpost::store::Db;

use crate::on_both_backends;
use crate::util::{account, TestApp};

fn play_whole_game(db: &Db, kind: &str, options: Value, players: &[AuthUser], seed: u64) {
    let request = NewGame {
        kind: kind.to_owned(),
        seats: players.len() as u8,
        options,
        // Clock events between the engine's, which every fold must pass over.
        time_control: TimeControl::DaysPerMove { days: 3 },
        ..NewGame::default()
    };
    let now = 1_800_000_000_000;
    let id = lobby::create_game(db, &players[0], &request, 100, now)
        .unwrap()
        .game
        .id;
    for player in &players[1..] {
        lobby::join_game(db, &id, player, None, now).unwrap();
    }
    let instances = [FoldCache::new(100, 1 << 30), FoldCache::new(100, 1 << 30)];
    let from_scratch = FoldCache::new(0, 0);
    let spectator = AuthUser {
        account_id: "nobody".into(),
        name: "nobody".into(),
        token_generation: 0,
        credential: turnpost::auth::Credential::SignIn,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for step in 0..20_000 {
        let expected_view = play::view(db, &from_scratch, &id, &spectator, None).unwrap();
        if expected_view.finished {
            assert_eq!(from_scratch.stats().games, 0);
            let stats = instances[0].stats();
            assert!(stats.hits > 0, "{kind}: the cache was used: {stats:?}");
            return;
        }
        let seat: Seat = expected_view.to_act[rng.gen_range(0..expected_view.to_act.len())];
        let player = &players[usize::from(seat)];
        for cache in &instances {
            for viewer in players.iter().chain([&spectator]) {
                assert_eq!(
                    play::view(db, cache, &id, viewer, None).unwrap(),
                    play::view(db, &from_scratch, &id, viewer, None).unwrap(),
                    "{kind} step {step}"
                );
            }
            assert_eq!(
                play::legal_actions(db, cache, &id, player, &ActionFilter::default())
                    .unwrap()
                    .actions_json
                    .get(),
                play::legal_actions(db, &from_scratch, &id, player, &ActionFilter::default())
                    .unwrap()
                    .actions_json
                    .get(),
                "{kind} step {step}"
            );
        }
        let legal =
            play::legal_actions(db, &from_scratch, &id, player, &ActionFilter::default()).unwrap();
        let actions: Vec<Value> = serde_json::from_str(legal.actions_json.get()).unwrap();
        let action = actions[rng.gen_range(0..actions.len())].clone();
        let acting = &instances[step % 2];
        actions::act(
            db,
            acting,
            &id,
            player,
            &ActionRequest {
                expected_seq: legal.seq,
                seat: None,
                action: action.clone(),
                idempotency_key: None,
                body: json!({"expected_seq": legal.seq, "action": action}),
            },
            now + step as i64 * 60_000,
        )
        .unwrap();
    }
    panic!("{kind}: no end after 20,000 actions");
}

async fn cached_states_always_equal_the_fold(app: &TestApp) {
    let db = Db::open(app.database_url()).unwrap();
    let players: Vec<AuthUser> = ["red", "blue", "yellow"]
        .iter()
        .map(|name| account(&db, name))
        .collect();
    let games = [
        ("tikal", json!({"auction": true}), 3),
        ("java", json!({}), 2),
        ("eternal_palace", json!({"privileges": true}), 3),
    ];
    for (seed, (kind, options, seats)) in games.into_iter().enumerate() {
        let db = Db::open(app.database_url()).unwrap();
        play_whole_game(&db, kind, options, &players[..seats], seed as u64);
    }
}

on_both_backends!(cached_states_always_equal_the_fold);
