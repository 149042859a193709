//! An async client for the turnpost API, typed with the engines' own types: a Tikal game's
//! legal actions are `TikalAction`s, its view a `TikalView`, its log `TikalEvent`s.
//!
//! ```no_run
//! # async fn demo() -> Result<(), turnpost_client::Error> {
//! use turnpost_client::Client;
//! use turnpost_games::tikal::{Tikal, TikalOptions};
//!
//! let alice = Client::new("http://127.0.0.1:8080").register("alice", "s3cret-pass").await?;
//! let game = alice.create_game::<Tikal>(2, TikalOptions::default()).await?;
//! // ... bob joins with `bob.game::<Tikal>(game.id()).join(None)` ...
//! let legal = game.legal_actions().await?;
//! game.act(legal.seq, &legal.actions[0]).await?;
//! # Ok(()) }
//! ```
//!
//! Every error the server sends arrives as [`Error::Problem`] with its stable code.

pub mod models;
pub mod pages;
pub mod people;

use std::marker::PhantomData;
use std::sync::Arc;

use reqwest::Method;
use serde::de::DeserializeOwned;
use serde::Serialize;

pub use models::*;
pub use pages::{Paged, Pages};
pub use people::{Follow, FollowList, HeadToHead, KindRecord, PlayerPage, Profile};

/// What went wrong with a call.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The server refused the request; `code` is stable (`stale_seq`, `illegal_action`, ...).
    #[error("{} {}: {}", .0.status, .0.code, .0.detail)]
    Problem(Box<Problem>),
    /// The server could not be reached, or the connection broke.
    #[error("transport: {0}")]
    Transport(#[from] reqwest::Error),
    /// The server answered something the contract does not allow.
    #[error("unexpected answer ({status}): {message}")]
    Contract { status: u16, message: String },
}

impl Error {
    /// The problem's stable code, if the server sent one.
    pub fn code(&self) -> Option<&str> {
        match self {
            Error::Problem(problem) => Some(&problem.code),
            _ => None,
        }
    }
}

/// Sees every raw answer: method, path, status, content type and body (e.g. to check it
/// against the OpenAPI document, or to log it).
pub type Inspector = Arc<dyn Fn(&Method, &str, u16, &str, &str) + Send + Sync>;

/// A connection to one server, signed in or not. Cheap to clone.
#[derive(Clone)]
pub struct Client {
    base: String,
    http: reqwest::Client,
    token: Option<String>,
    inspector: Option<Inspector>,
}

impl Client {
    /// A client for the server at `base` (e.g. `http://127.0.0.1:8080`), not signed in.
    pub fn new(base: impl Into<String>) -> Client {
        Client {
            base: base.into().trim_end_matches('/').to_owned(),
            // The server closes idle keep-alive connections after 5 seconds; dropping them
            // sooner keeps a request from being sent on one that is being closed.
            http: reqwest::Client::builder()
                .pool_idle_timeout(std::time::Duration::from_secs(4))
                .build()
                .unwrap_or_default(),
            token: None,
            inspector: None,
        }
    }

    /// The same client, calling `inspector` with every answer it reads.
    pub fn with_inspector(mut self, inspector: Inspector) -> Client {
        self.inspector = Some(inspector);
        self
    }

    /// The same client, sending `token` as its bearer token.
    pub fn with_token(mut self, token: impl Into<String>) -> Client {
        self.token = Some(token.into());
        self
    }

    /// The bearer token this client sends, if signed in.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<&(impl Serialize + ?Sized)>,
        headers: &[(&str, &str)],
    ) -> Result<T, Error> {
        let mut request = self
            .http
            .request(method.clone(), format!("{}{path}", self.base))
            .query(query);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await?;
        let status = response.status();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let mut text = response.text().await?;
        if let Some(inspector) = &self.inspector {
            inspector(&method, path, status.as_u16(), &content_type, &text);
        }
        if status.is_success() && text.is_empty() {
            // No body (204, 202): what `()` reads.
            text = "null".to_owned();
        }
        let contract = |message: String| Error::Contract {
            status: status.as_u16(),
            message,
        };
        if !status.is_success() {
            return Err(match serde_json::from_str::<Problem>(&text) {
                Ok(problem) => Error::Problem(Box::new(problem)),
                Err(error) => contract(format!("not a problem document ({error}): {text}")),
            });
        }
        serde_json::from_str(&text).map_err(|error| contract(format!("{error}: {text}")))
    }

    /// Creates an account and signs it in.
    pub async fn register(&self, name: &str, password: &str) -> Result<Client, Error> {
        let credentials = serde_json::json!({"name": name, "password": password});
        let _: AccountCreated = self
            .call(Method::POST, "/v1/accounts", &[], Some(&credentials), &[])
            .await?;
        self.sign_in(name, password).await
    }

    /// A client signed in as `name`.
    pub async fn sign_in(&self, name: &str, password: &str) -> Result<Client, Error> {
        let credentials = serde_json::json!({"name": name, "password": password});
        let issued: TokenIssued = self
            .call(Method::POST, "/v1/tokens", &[], Some(&credentials), &[])
            .await?;
        Ok(self.clone().with_token(issued.token))
    }

    /// Creates a game of kind `G` with `seats` seats; the caller takes seat 0.
    pub async fn create_game<G: Game>(
        &self,
        seats: u8,
        options: G::Options,
    ) -> Result<GameHandle<G>, Error> {
        self.create_game_with::<G>(CreateGame {
            kind: G::KIND,
            seats,
            options,
            seat: None,
            time_control: TimeControl::None,
            bots: Vec::new(),
            visibility: Visibility::Public,
            invite: Vec::new(),
            spectator_chat: false,
            rated: true,
            title: None,
        })
        .await
    }

    /// Creates a game with everything `POST /v1/games` takes: a time control, bots in
    /// seats, the creator's seat, privacy and invitations.
    pub async fn create_game_with<G: Game>(
        &self,
        body: CreateGame<G>,
    ) -> Result<GameHandle<G>, Error> {
        let summary: GameSummary<G> = self
            .call(Method::POST, "/v1/games", &[], Some(&body), &[])
            .await?;
        Ok(self.game(&summary.id))
    }

    /// A game of kind `G` to act on (nothing is fetched yet).
    pub fn game<G: Game>(&self, id: &str) -> GameHandle<G> {
        GameHandle {
            client: self.clone(),
            id: id.to_owned(),
            kind: PhantomData,
        }
    }

    /// Creates a personal token limited to `scopes`, expiring in `expires_in_days` (the
    /// server's default, 90, when `None`). Its `token` is shown this once; use it with
    /// [`Client::with_token`].
    pub async fn create_personal_token(
        &self,
        name: &str,
        scopes: &[Scope],
        expires_in_days: Option<u32>,
    ) -> Result<PersonalTokenCreated, Error> {
        let body = NewPersonalToken {
            name: name.to_owned(),
            scopes: scopes.to_vec(),
            expires_in_days,
        };
        self.call(
            Method::POST,
            "/v1/me/personal-tokens",
            &[],
            Some(&body),
            &[],
        )
        .await
    }

    /// The account's personal tokens, oldest first, without their secrets.
    pub async fn personal_tokens(&self) -> Result<Vec<PersonalToken>, Error> {
        Pages::<PersonalTokenList>::new(self, "/v1/me/personal-tokens".into(), Vec::new())
            .all()
            .await
    }

    /// Revokes the personal token `id` at once.
    pub async fn revoke_personal_token(&self, id: &str) -> Result<(), Error> {
        self.call(
            Method::DELETE,
            &format!("/v1/me/personal-tokens/{id}"),
            &[],
            None::<&()>,
            &[],
        )
        .await
    }

    /// Kind `kind`'s leaderboard, best first, `page_size` players a page (1 to 200).
    pub fn leaderboard(&self, kind: &str, page_size: u32) -> Pages<Leaderboard> {
        Pages::new(
            self,
            format!("/v1/leaderboards/{kind}"),
            vec![("limit", page_size.to_string())],
        )
    }

    /// The ratings of the account called `name`, each page with the next changes of its
    /// history, newest first.
    pub fn ratings(&self, name: &str) -> Pages<AccountRatings> {
        Pages::new(self, format!("/v1/accounts/{name}/ratings"), Vec::new())
    }

    /// Minutes before each of the caller's deadlines at which it is reminded, longest first.
    pub async fn reminders(&self) -> Result<Vec<u32>, Error> {
        let reminders: Reminders = self
            .call(Method::GET, "/v1/me/reminders", &[], None::<&()>, &[])
            .await?;
        Ok(reminders.before_minutes)
    }

    /// Chooses when the caller is reminded before its deadlines (at most 3 times, each 5
    /// minutes to 7 days; empty for none); the times as stored.
    pub async fn set_reminders(&self, before_minutes: &[u32]) -> Result<Vec<u32>, Error> {
        let body = Reminders {
            before_minutes: before_minutes.to_vec(),
        };
        let reminders: Reminders = self
            .call(Method::PUT, "/v1/me/reminders", &[], Some(&body), &[])
            .await?;
        Ok(reminders.before_minutes)
    }

    /// The caller's vacation, the days left this year, and whether deadlines start vacation
    /// days by themselves.
    pub async fn vacation(&self) -> Result<Vacation, Error> {
        self.call(Method::GET, "/v1/me/vacation", &[], None::<&()>, &[])
            .await
    }

    /// Goes on vacation now for `days` whole days: the caller's clocks stand still in every
    /// game until then (or [`Client::end_vacation`]).
    pub async fn start_vacation(&self, days: i64) -> Result<Vacation, Error> {
        self.call(
            Method::POST,
            "/v1/me/vacation",
            &[],
            Some(&NewVacation { days }),
            &[],
        )
        .await
    }

    /// Ends the caller's vacation now: the clocks run again with the time they had left.
    pub async fn end_vacation(&self) -> Result<Vacation, Error> {
        self.call(Method::DELETE, "/v1/me/vacation", &[], None::<&()>, &[])
            .await
    }

    /// Chooses whether a deadline that would pass starts a day of vacation instead.
    pub async fn set_automatic_vacation(&self, automatic: bool) -> Result<Vacation, Error> {
        self.call(
            Method::PUT,
            "/v1/me/vacation/automatic",
            &[],
            Some(&AutomaticVacation { automatic }),
            &[],
        )
        .await
    }

    /// The caller's mail address and what is mailed to it.
    pub async fn email(&self) -> Result<EmailSettings, Error> {
        self.call(Method::GET, "/v1/me/email", &[], None::<&()>, &[])
            .await
    }

    /// Sets the caller's mail address and choices. A new address is mailed a confirmation
    /// link and nothing else until [`Client::confirm_email`] is called with its token.
    pub async fn set_email(&self, settings: &EmailSettingsUpdate) -> Result<EmailSettings, Error> {
        self.call(Method::PUT, "/v1/me/email", &[], Some(settings), &[])
            .await
    }

    /// Mails a new confirmation link to the caller's unconfirmed address.
    pub async fn resend_email_confirmation(&self) -> Result<EmailSettings, Error> {
        self.call(
            Method::POST,
            "/v1/me/email/confirmation",
            &[],
            None::<&()>,
            &[],
        )
        .await
    }

    /// Confirms an address with the token of its confirmation link (no sign-in needed);
    /// the address confirmed.
    pub async fn confirm_email(&self, token: &str) -> Result<String, Error> {
        let followed: MailLinkFollowed = self
            .call(
                Method::POST,
                "/v1/email/confirm",
                &[],
                Some(&MailToken { token }),
                &[],
            )
            .await?;
        Ok(followed.address)
    }

    /// Stops every mail but confirmations to the address of an unsubscribe link's token
    /// (no sign-in needed); the address.
    pub async fn unsubscribe_email(&self, token: &str) -> Result<String, Error> {
        let followed: MailLinkFollowed = self
            .call(
                Method::POST,
                "/v1/email/unsubscribe",
                &[],
                Some(&MailToken { token }),
                &[],
            )
            .await?;
        Ok(followed.address)
    }

    /// The server's Web Push (VAPID) public key (no sign-in needed).
    pub async fn vapid_public_key(&self) -> Result<String, Error> {
        let key: VapidPublicKey = self
            .call(
                Method::GET,
                "/v1/push/vapid-public-key",
                &[],
                None::<&()>,
                &[],
            )
            .await?;
        Ok(key.public_key)
    }

    /// Pushes the caller's notifications to a browser from now on (the same browser again
    /// updates its subscription).
    pub async fn add_push_subscription(
        &self,
        subscription: &NewPushSubscription,
    ) -> Result<PushSubscription, Error> {
        self.call(
            Method::POST,
            "/v1/me/push-subscriptions",
            &[],
            Some(subscription),
            &[],
        )
        .await
    }

    /// The caller's devices that get pushes, oldest first.
    pub async fn push_subscriptions(&self) -> Result<Vec<PushSubscription>, Error> {
        Pages::<PushSubscriptionList>::new(self, "/v1/me/push-subscriptions".into(), Vec::new())
            .all()
            .await
    }

    /// Chooses what is pushed to one of the caller's devices.
    pub async fn set_push_topics(
        &self,
        id: &str,
        topics: &[EmailTopic],
    ) -> Result<PushSubscription, Error> {
        self.call(
            Method::PUT,
            &format!("/v1/me/push-subscriptions/{id}/topics"),
            &[],
            Some(&PushTopics { topics }),
            &[],
        )
        .await
    }

    /// Stops pushing to one of the caller's devices.
    pub async fn remove_push_subscription(&self, id: &str) -> Result<(), Error> {
        self.call(
            Method::DELETE,
            &format!("/v1/me/push-subscriptions/{id}"),
            &[],
            None::<&()>,
            &[],
        )
        .await
    }

    /// Queues a test push to one of the caller's devices.
    pub async fn test_push_subscription(&self, id: &str) -> Result<(), Error> {
        self.call(
            Method::POST,
            &format!("/v1/me/push-subscriptions/{id}/test"),
            &[],
            None::<&()>,
            &[],
        )
        .await
    }

    /// The caller's invitations waiting for an answer, newest first. Accept one by joining
    /// its game ([`GameHandle::join`]), or decline it ([`GameHandle::decline`]).
    pub async fn invitations(&self) -> Result<Vec<Invitation>, Error> {
        Pages::<InvitationList>::new(self, "/v1/me/invitations".into(), Vec::new())
            .all()
            .await
    }

    /// All the games the caller sits in, most recently active first (`my_turn`: only those
    /// where the caller must act, nearest deadline first).
    pub async fn my_games(&self, my_turn: bool) -> Result<Vec<AnyGameSummary>, Error> {
        self.games(&[("mine", "true"), ("my_turn", &my_turn.to_string())])
            .all()
            .await
    }

    /// The games `filters` (`GET /v1/games`'s parameters, as pairs) select, a page at a time:
    /// the lobby (`status=open`), the games to watch (`status=running&public=true`,
    /// `following=true`) and the archive (`status=finished&public=true` with `kind`,
    /// `players`, `winner`, `options`, `time_control`, `since`, `until`, `min_rating`,
    /// `max_rating`).
    pub fn games(&self, filters: &[(&'static str, &str)]) -> Pages<GameList> {
        let query = filters
            .iter()
            .map(|(name, value)| (*name, (*value).to_owned()))
            .collect();
        Pages::new(self, "/v1/games".into(), query)
    }
}

/// One game of kind `G`, seen by one client.
#[derive(Clone)]
pub struct GameHandle<G: Game> {
    client: Client,
    id: String,
    kind: PhantomData<fn() -> G>,
}

impl<G: Game> GameHandle<G> {
    pub fn id(&self) -> &str {
        &self.id
    }

    fn path(&self, tail: &str) -> String {
        format!("/v1/games/{}{tail}", self.id)
    }

    pub async fn summary(&self) -> Result<GameSummary<G>, Error> {
        self.client
            .call(Method::GET, &self.path(""), &[], None::<&()>, &[])
            .await
    }

    /// Takes `seat`, or the lowest open seat.
    pub async fn join(&self, seat: Option<u8>) -> Result<GameSummary<G>, Error> {
        let body = serde_json::json!({"seat": seat});
        self.client
            .call(Method::POST, &self.path("/seats"), &[], Some(&body), &[])
            .await
    }

    /// The game's chat after message `after` (0: from the first), at most 100 messages
    /// (its `next` is set when more follow: [`Self::chat_pages`] reads them all); `wait`
    /// long-polls up to that many seconds (at most 60) for the next one.
    pub async fn chat(&self, after: i64, wait: Option<u64>) -> Result<ChatLog, Error> {
        let mut query = vec![("after", after.to_string())];
        if let Some(wait) = wait {
            query.push(("wait", wait.to_string()));
        }
        self.client
            .call(Method::GET, &self.path("/chat"), &query, None::<&()>, &[])
            .await
    }

    /// Writes in the game's chat; `@name` notifies that player.
    pub async fn say(&self, text: &str) -> Result<ChatMessage, Error> {
        let body = serde_json::json!({ "text": text });
        self.client
            .call(Method::POST, &self.path("/chat"), &[], Some(&body), &[])
            .await
    }

    /// Deletes the caller's chat message `id`; a tombstone stays.
    pub async fn delete_chat_message(&self, id: i64) -> Result<ChatMessage, Error> {
        self.client
            .call(
                Method::DELETE,
                &self.path(&format!("/chat/{id}")),
                &[],
                None::<&()>,
                &[],
            )
            .await
    }

    /// Declines the caller's invitation to this open unlisted or private game; its creator
    /// is told.
    pub async fn decline(&self) -> Result<GameSummary<G>, Error> {
        self.client
            .call(Method::POST, &self.path("/decline"), &[], None::<&()>, &[])
            .await
    }

    /// Plays this finished or abandoned game again (the same seats, bots, options and time
    /// control; the other players are invited), or joins the rematch another player asked
    /// for first: the rematch's handle.
    pub async fn rematch(&self) -> Result<GameHandle<G>, Error> {
        let rematch: GameSummary<G> = self
            .client
            .call(Method::POST, &self.path("/rematch"), &[], None::<&()>, &[])
            .await?;
        Ok(self.client.game(&rematch.id))
    }

    /// Votes to abandon the game (`agree`), or takes the vote back. The game ends without a
    /// result once every seat a person still plays has voted.
    pub async fn vote_to_abandon(&self, agree: bool) -> Result<GameSummary<G>, Error> {
        let body = serde_json::json!({ "agree": agree });
        self.client
            .call(Method::POST, &self.path("/abandon"), &[], Some(&body), &[])
            .await
    }

    /// Takes back the caller's last action within their turn; the log must still end at
    /// `expected_seq`. Refused (409) with `nothing_to_take_back`, `other_seat_acted`,
    /// `outcome_revealed`, `others_affected`, `turn_over`, `take_back_limit`,
    /// `clock_stood_still` or `deadline_passed` when the action stays.
    pub async fn take_back(&self, expected_seq: i64) -> Result<ActionAccepted<G>, Error> {
        let body = serde_json::json!({ "expected_seq": expected_seq });
        self.client
            .call(
                Method::POST,
                &self.path("/take-back"),
                &[],
                Some(&body),
                &[],
            )
            .await
    }

    /// Resigns the caller's seat: in a two-player game the other seat wins; with more
    /// players a bot plays on for it and it ranks last.
    pub async fn resign(&self) -> Result<GameSummary<G>, Error> {
        self.client
            .call(Method::POST, &self.path("/resign"), &[], None::<&()>, &[])
            .await
    }

    /// The game now, or right after seq `at`.
    pub async fn view(&self, at: Option<i64>) -> Result<ViewOut<G>, Error> {
        let query: Vec<(&str, String)> = at.map(|at| ("at", at.to_string())).into_iter().collect();
        self.client
            .call(Method::GET, &self.path("/view"), &query, None::<&()>, &[])
            .await
    }

    /// Every action the caller's seat may take now.
    pub async fn legal_actions(&self) -> Result<LegalActions<G>, Error> {
        self.legal_actions_filtered(&ActionFilter::default()).await
    }

    /// The legal actions that pass `filter`.
    pub async fn legal_actions_filtered(
        &self,
        filter: &ActionFilter,
    ) -> Result<LegalActions<G>, Error> {
        let query: Vec<(&str, String)> = [
            ("type", filter.action_type.clone()),
            ("space", filter.space.clone()),
            ("tile", filter.tile.clone()),
        ]
        .into_iter()
        .filter_map(|(name, value)| value.map(|value| (name, value)))
        .collect();
        self.client
            .call(
                Method::GET,
                &self.path("/legal-actions"),
                &query,
                None::<&()>,
                &[],
            )
            .await
    }

    /// The step of the legal actions that `picks` (each an earlier step's option
    /// `choice`, in order) lead to; `at_seq` refuses picks made at another seq
    /// (`stale_seq`).
    pub async fn legal_choices(
        &self,
        picks: &[&str],
        at_seq: Option<i64>,
    ) -> Result<LegalChoices<G>, Error> {
        let mut query: Vec<(&str, String)> = picks
            .iter()
            .map(|pick| ("choice", (*pick).to_owned()))
            .collect();
        query.extend(at_seq.map(|seq| ("seq", seq.to_string())));
        self.client
            .call(
                Method::GET,
                &self.path("/legal-choices"),
                &query,
                None::<&()>,
                &[],
            )
            .await
    }

    /// What posting `action` at `expected_seq` would do, with nothing written; `board`
    /// also draws the board after it.
    pub async fn preview(
        &self,
        expected_seq: i64,
        action: &G::Action,
        board: bool,
    ) -> Result<ActionPreview<G>, Error> {
        let body = PostAction::<G> {
            expected_seq,
            action,
        };
        let query: Vec<(&str, String)> = if board {
            vec![("board", "true".to_owned())]
        } else {
            Vec::new()
        };
        self.client
            .call(
                Method::POST,
                &self.path("/actions/preview"),
                &query,
                Some(&body),
                &[],
            )
            .await
    }

    /// Posts `action`, chosen at seq `expected_seq`.
    pub async fn act(
        &self,
        expected_seq: i64,
        action: &G::Action,
    ) -> Result<ActionAccepted<G>, Error> {
        self.act_once(expected_seq, action, None).await
    }

    /// Posts `action` with an `Idempotency-Key`: a retry with the same key returns the
    /// first answer and appends nothing.
    pub async fn act_once(
        &self,
        expected_seq: i64,
        action: &G::Action,
        idempotency_key: Option<&str>,
    ) -> Result<ActionAccepted<G>, Error> {
        let body = PostAction::<G> {
            expected_seq,
            action,
        };
        let headers: Vec<(&str, &str)> = idempotency_key
            .map(|key| ("Idempotency-Key", key))
            .into_iter()
            .collect();
        self.client
            .call(
                Method::POST,
                &self.path("/actions"),
                &[],
                Some(&body),
                &headers,
            )
            .await
    }

    /// The game's chat from the first message, a page at a time.
    pub fn chat_pages(&self) -> Pages<ChatLog> {
        Pages::new(&self.client, self.path("/chat"), Vec::new())
    }

    /// The log after seq `after`, as the caller may see it, a page at a time (up to 1,000
    /// events a page).
    pub fn events(&self, after: i64) -> Pages<EventLog<G>> {
        Pages::new(
            &self.client,
            self.path("/events"),
            vec![("after", after.to_string())],
        )
    }

    /// The whole history (complete once the game is finished).
    pub async fn export(&self) -> Result<GameExport<G>, Error> {
        self.client
            .call(Method::GET, &self.path("/export"), &[], None::<&()>, &[])
            .await
    }
}
