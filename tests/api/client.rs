//! The Rust client (`crates/client`) plays whole games of every kind, typed with the
//! engines' own types: every answer it reads is parsed into them (refusing unknown fields)
//! and checked against the committed spec.

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use turnpost::games::eternal_palace::{EternalPalace, EternalPalaceOptions};
use turnpost::games::java::{Java, JavaOptions};
use turnpost::games::tikal::{Tikal, TikalOptions};
use turnpost_client::{
    AnyGameSummary, Client, CreateGame, Error, Game, GameStatus, Profile, TimeControl, Visibility,
};

use crate::on_both_backends;
use crate::util::TestApp;

/// A client whose every answer is checked against the committed spec.
pub(crate) fn checked_client(app: &TestApp) -> Client {
    Client::new(&app.base).with_inspector(Arc::new(|method, path, status, content_type, body| {
        crate::contract::check(method, path, status, content_type, body)
    }))
}

/// Picks one of the legal actions, seeing them and the view as JSON.
type Chooser = fn(&[Value], &Value, &mut ChaCha8Rng) -> usize;

fn uniform(actions: &[Value], _view: &Value, rng: &mut ChaCha8Rng) -> usize {
    rng.gen_range(0..actions.len())
}

/// Plays a whole game of `G` with `seats` players through the typed client and checks what
/// a client author relies on along the way.
async fn play_whole_game<G: Game>(
    app: &TestApp,
    seats: u8,
    options: G::Options,
    choose: Chooser,
    seed: u64,
) {
    let anonymous = checked_client(app);
    let mut players = Vec::new();
    for seat in 0..seats {
        let name = format!("{}-{seat}", G::KIND.replace('_', "-"));
        players.push(anonymous.register(&name, "s3cret-pass").await.unwrap());
    }
    let created = players[0].create_game::<G>(seats, options).await.unwrap();
    let id = created.id().to_owned();
    for player in &players[1..] {
        player.game::<G>(&id).join(None).await.unwrap();
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut posted = 0;
    let mut summary = players[0].game::<G>(&id).summary().await.unwrap();
    while summary.status == GameStatus::Running {
        assert!(posted < 6_000, "the game ends");
        let seat = summary.to_act[rng.gen_range(0..summary.to_act.len())];
        let game = players[usize::from(seat)].game::<G>(&id);
        let legal = game.legal_actions().await.unwrap();
        assert_eq!(legal.seat, Some(seat));
        assert!(!legal.actions.is_empty(), "seat {seat} must act and can");
        let actions: Vec<Value> = legal
            .actions
            .iter()
            .map(|action| serde_json::to_value(action).unwrap())
            .collect();
        let view = game.view(None).await.unwrap();
        let pick = choose(
            &actions,
            &serde_json::to_value(&view.view).unwrap(),
            &mut rng,
        );
        // Now and then the action is reached step by step and previewed first.
        if posted % 17 == 3 {
            let picks = turnpost::games::choices::ActionTree::from_json(
                &serde_json::to_string(&actions).unwrap(),
            )
            .unwrap()
            .picks_for(&actions[pick])
            .expect("every legal action has its picks");
            let picks: Vec<&str> = picks.iter().map(String::as_str).collect();
            let step = game.legal_choices(&picks, Some(legal.seq)).await.unwrap();
            assert_eq!(step.field, None);
            assert_eq!(
                serde_json::to_value(step.action.unwrap()).unwrap(),
                actions[pick]
            );
            let first = game.legal_choices(&[], None).await.unwrap();
            assert_eq!(first.remaining as usize, actions.len());
            let preview = game
                .preview(legal.seq, &legal.actions[pick], true)
                .await
                .unwrap();
            assert_eq!(preview.from_seq, legal.seq);
            assert!(preview.board_svg.is_some_and(|svg| svg.contains("<svg")));
            assert_eq!(
                game.summary().await.unwrap().current_seq,
                legal.seq,
                "a preview writes nothing"
            );
        }
        let accepted = game.act(legal.seq, &legal.actions[pick]).await.unwrap();
        assert!(accepted.seq > legal.seq);
        assert_eq!(
            accepted.events.last().map(|event| event.seq),
            Some(accepted.seq)
        );
        posted += 1;
        // Now and then the action is taken back and posted again, or stays with a reason.
        if posted % 25 == 2 && !accepted.view.finished {
            match game.take_back(accepted.seq).await {
                Ok(back) => {
                    assert_eq!(back.events[0].event_type, "actions_taken_back");
                    assert_eq!(back.view.to_act, summary.to_act);
                    let again = game.act(back.seq, &legal.actions[pick]).await.unwrap();
                    assert_eq!(again.seq, back.seq + (accepted.seq - legal.seq));
                    posted += 1;
                }
                Err(Error::Problem(problem)) => assert!(
                    [
                        "nothing_to_take_back",
                        "other_seat_acted",
                        "outcome_revealed",
                        "others_affected",
                        "turn_over"
                    ]
                    .contains(&problem.code.as_str()),
                    "{problem:?}"
                ),
                Err(other) => panic!("expected a problem, got {other}"),
            }
            summary = players[0].game::<G>(&id).summary().await.unwrap();
            continue;
        }
        // (An action that ended the game is answered `game_finished` when posted again.)
        if posted % 50 == 1 && !accepted.view.finished {
            // A stale seq is a typed problem with the seq to refetch from.
            let error = game.act(legal.seq, &legal.actions[pick]).await.unwrap_err();
            match error {
                Error::Problem(problem) => {
                    assert_eq!(problem.code, "stale_seq");
                    assert_eq!(problem.current_seq, Some(accepted.seq));
                }
                other => panic!("expected a problem, got {other}"),
            }
        }
        summary = players[0].game::<G>(&id).summary().await.unwrap();
    }
    assert_eq!(summary.status, GameStatus::Finished);
    let outcome = summary.outcome.expect("a finished game has an outcome");
    assert_eq!(outcome.places.len(), usize::from(seats));
    let game = players[0].game::<G>(&id);
    let export = game.export().await.unwrap();
    assert!(export.complete && export.seed.is_some());
    assert_eq!(export.actions.as_ref().map(Vec::len), Some(posted));
    let mut pages = game.events(0);
    let first = pages.next_page().await.unwrap().expect("a first page");
    assert_eq!(first.current_seq, summary.current_seq);
    let mut events = first.events;
    while let Some(page) = pages.next_page().await.unwrap() {
        events.extend(page.events);
    }
    assert_eq!(events.len(), export.events.len());
    assert!(events.windows(2).all(|pair| pair[0].seq < pair[1].seq));
    let early = game.view(Some(1)).await.unwrap();
    assert_eq!(early.seq, 1);
    assert!(!early.finished);
    let listed = players[1].my_games(false).await.unwrap();
    assert!(listed.iter().any(|game| game.id() == id));
}

/// A player's page, one's own page, following and the archive, every answer typed.
async fn pages_profiles_following_and_the_archive(app: &TestApp) {
    let anonymous = checked_client(app);
    let alice = anonymous.register("alice", "s3cret-pass").await.unwrap();
    let bob = anonymous.register("bob", "s3cret-pass").await.unwrap();
    let profile = Profile {
        about: Some("Tikal since 1999.".to_owned()),
        country: Some("AT".to_owned()),
        language: Some("de".to_owned()),
        show_last_seen: false,
    };
    assert_eq!(alice.set_profile(&profile).await.unwrap(), profile);
    assert_eq!(alice.profile().await.unwrap(), profile);
    let refused = alice
        .set_profile(&Profile {
            country: Some("Austria".to_owned()),
            ..profile.clone()
        })
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, Error::Problem(problem) if problem.code == "invalid_profile"),
        "{refused:?}"
    );

    let followed = bob.follow("ALICE").await.unwrap();
    assert_eq!(followed.account.name, "alice");
    let page = bob.player("alice").await.unwrap();
    assert_eq!(page.about, "Tikal since 1999.");
    assert_eq!(page.last_seen, None, "alice hides the day");
    assert!(page.you_follow);
    assert_eq!(page.followers, 1);
    assert_eq!(page.head_to_head.map(|record| record.games), Some(0));
    let listed = bob.following().all().await.unwrap();
    assert_eq!(listed.len(), 1);

    // A public game with a title, resigned: the archive has it, named.
    let game = alice
        .create_game_with::<Tikal>(CreateGame {
            kind: Tikal::KIND,
            seats: 2,
            options: TikalOptions::default(),
            seat: None,
            time_control: TimeControl::None,
            bots: Vec::new(),
            visibility: Visibility::Public,
            invite: Vec::new(),
            spectator_chat: false,
            rated: false,
            title: Some("A quick one".to_owned()),
        })
        .await
        .unwrap();
    assert_eq!(game.summary().await.unwrap().name, "A quick one");
    bob.game::<Tikal>(game.id()).join(None).await.unwrap();
    game.resign().await.unwrap();
    let archive = bob
        .games(&[
            ("status", "finished"),
            ("public", "true"),
            ("winner", "bob"),
        ])
        .all()
        .await
        .unwrap();
    assert_eq!(archive.len(), 1);
    assert_eq!(archive[0].id(), game.id());
    let page = bob.player("alice").await.unwrap();
    assert_eq!(page.recent_games.len(), 1);
    assert_eq!(page.head_to_head.map(|record| record.you_ahead), Some(1));
    let board = bob.leaderboard("tikal", 10).all().await.unwrap();
    assert!(board.is_empty(), "an unrated game rates nobody");
    bob.unfollow("alice").await.unwrap();
    assert!(bob.following().all().await.unwrap().is_empty());
}

async fn a_whole_tikal_game(app: &TestApp) {
    play_whole_game::<Tikal>(app, 2, TikalOptions::default(), uniform, 7).await;
}

async fn a_whole_java_game(app: &TestApp) {
    play_whole_game::<Java>(app, 2, JavaOptions::default(), crate::java::festive, 3).await;
}

async fn a_whole_eternal_palace_game(app: &TestApp) {
    play_whole_game::<EternalPalace>(app, 3, EternalPalaceOptions::default(), uniform, 5).await;
}

/// An invitation answered, a chat, a game abandoned by vote and played again, through the
/// client.
async fn invitations_chat_abandoning_and_rematches(app: &TestApp) {
    let anonymous = checked_client(app);
    let alice = anonymous.register("alice", "s3cret-pass").await.unwrap();
    let bob = anonymous.register("bob", "s3cret-pass").await.unwrap();
    let created = alice
        .create_game_with::<Tikal>(CreateGame {
            kind: Tikal::KIND,
            seats: 2,
            options: TikalOptions::default(),
            seat: None,
            time_control: TimeControl::None,
            bots: Vec::new(),
            visibility: Visibility::Private,
            invite: vec!["bob".to_owned()],
            spectator_chat: false,
            rated: true,
            title: None,
        })
        .await
        .unwrap();
    assert_eq!(bob.reminders().await.unwrap(), [1440, 60]);
    assert_eq!(bob.set_reminders(&[60, 720]).await.unwrap(), [720, 60]);
    let invitations = bob.invitations().await.unwrap();
    assert_eq!(invitations.len(), 1);
    assert_eq!(invitations[0].invited_by.name, "alice");
    assert!(matches!(&invitations[0].game, AnyGameSummary::Tikal(game) if game.id == created.id()));
    let game = bob.game::<Tikal>(created.id());
    assert_eq!(game.join(None).await.unwrap().status, GameStatus::Running);
    assert!(bob.invitations().await.unwrap().is_empty());

    let said = created.say("hello @bob").await.unwrap();
    assert_eq!(said.mentions, ["bob"]);
    let log = game.chat(0, None).await.unwrap();
    assert_eq!(log.messages, std::slice::from_ref(&said));
    let tombstone = created.delete_chat_message(said.id).await.unwrap();
    assert_eq!(tombstone.text, None);
    let waited = game.chat(said.id, Some(1)).await.unwrap();
    assert!(waited.messages.is_empty(), "nothing came after it");

    let voted = game.vote_to_abandon(true).await.unwrap();
    assert_eq!(voted.status, GameStatus::Running);
    let ended = created.vote_to_abandon(true).await.unwrap();
    assert_eq!(ended.status, GameStatus::Abandoned);
    assert!(ended.outcome.is_none());
    let export = created.export().await.unwrap();
    assert!(export.complete && export.seed.is_some());
    assert_eq!(export.chat, Some(vec![tombstone]));

    // Abandoned: no result, so nobody's rating moved.
    let ratings = bob.ratings("alice").next_page().await.unwrap().unwrap();
    assert!(ratings.ratings.is_empty() && ratings.history.is_empty());
    assert!(bob.leaderboard("tikal", 10).all().await.unwrap().is_empty());

    let rematch = game.rematch().await.unwrap();
    assert_eq!(created.rematch().await.unwrap().id(), rematch.id());
    let invitations = alice.invitations().await.unwrap();
    assert_eq!(invitations[0].rematch_of.as_deref(), Some(created.id()));
    match rematch.decline().await {
        Err(Error::Problem(problem)) => assert_eq!(problem.code, "already_seated"),
        other => panic!("the rematch's creator sits in it: {other:?}"),
    }
    let declined = alice.game::<Tikal>(rematch.id()).decline().await.unwrap();
    assert_eq!(declined.status, GameStatus::Open);
    assert!(alice.invitations().await.unwrap().is_empty());
}

on_both_backends!(
    pages_profiles_following_and_the_archive,
    invitations_chat_abandoning_and_rematches,
    a_whole_tikal_game,
    a_whole_java_game,
    a_whole_eternal_palace_game
);

/// The README's game, compiled from the example file it is copied from.
#[allow(dead_code)]
#[path = "../../crates/client/examples/play_tikal.rs"]
mod readme_example;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_game_plays_to_the_end() {
    let app = TestApp::start(crate::util::Backend::Sqlite).await;
    readme_example::play(&app.base).await.unwrap();
}

/// The client's README shows the example's code exactly.
#[test]
fn the_readme_shows_the_example() {
    let example = include_str!("../../crates/client/examples/play_tikal.rs");
    let start = example.find("// README begin\n").unwrap() + "// README begin\n".len();
    let end = example.find("// README end").unwrap();
    let readme = include_str!("../../crates/client/README.md");
    assert!(
        readme.contains(&example[start..end]),
        "crates/client/README.md must show examples/play_tikal.rs's `play`"
    );
}
