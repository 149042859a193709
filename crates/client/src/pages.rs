//! Lists read a page at a time: every list answer carries `next`, the cursor of the page
//! after it (`None` on the last), and [`Pages`] follows it.

use std::marker::PhantomData;

use reqwest::Method;
use serde::de::DeserializeOwned;

use crate::models::{
    AccountRatings, AnyGameSummary, ChatLog, ChatMessage, EventLog, EventOut, Game, GameList,
    Invitation, InvitationList, Leaderboard, LeaderboardEntry, PersonalToken, PersonalTokenList,
    PushSubscription, PushSubscriptionList, RatingChange,
};
use crate::{Client, Error};

/// A list answer: its items and the cursor of the next page.
pub trait Paged: DeserializeOwned {
    type Item;
    fn next_cursor(&self) -> Option<&str>;
    fn into_items(self) -> Vec<Self::Item>;
}

/// A list read a page at a time, each request continuing at the previous page's `next`.
pub struct Pages<L: Paged> {
    client: Client,
    path: String,
    query: Vec<(&'static str, String)>,
    cursor: Option<String>,
    finished: bool,
    list: PhantomData<fn() -> L>,
}

impl<L: Paged> Pages<L> {
    pub(crate) fn new(client: &Client, path: String, query: Vec<(&'static str, String)>) -> Self {
        Pages {
            client: client.clone(),
            path,
            query,
            cursor: None,
            finished: false,
            list: PhantomData,
        }
    }

    /// The next page as the server sent it; `None` once the last one was read.
    pub async fn next_page(&mut self) -> Result<Option<L>, Error> {
        if self.finished {
            return Ok(None);
        }
        let mut query = self.query.clone();
        if let Some(cursor) = &self.cursor {
            // The cursor says where to continue: the first page's start goes.
            query.retain(|(name, _)| *name != "after");
            query.push(("cursor", cursor.clone()));
        }
        let page: L = self
            .client
            .call(Method::GET, &self.path, &query, None::<&()>, &[])
            .await?;
        self.cursor = page.next_cursor().map(str::to_owned);
        self.finished = self.cursor.is_none();
        Ok(Some(page))
    }

    /// The items of every page not read yet, in the list's order.
    pub async fn all(mut self) -> Result<Vec<L::Item>, Error> {
        let mut items = Vec::new();
        while let Some(page) = self.next_page().await? {
            items.extend(page.into_items());
        }
        Ok(items)
    }
}

macro_rules! paged {
    ($list:ty, $item:ty, $field:ident) => {
        impl Paged for $list {
            type Item = $item;
            fn next_cursor(&self) -> Option<&str> {
                self.next.as_deref()
            }
            fn into_items(self) -> Vec<$item> {
                self.$field
            }
        }
    };
}

paged!(GameList, AnyGameSummary, games);
paged!(Leaderboard, LeaderboardEntry, players);
paged!(InvitationList, Invitation, invitations);
paged!(PersonalTokenList, PersonalToken, personal_tokens);
paged!(PushSubscriptionList, PushSubscription, subscriptions);
paged!(ChatLog, ChatMessage, messages);
paged!(AccountRatings, RatingChange, history);

impl<G: Game> Paged for EventLog<G> {
    type Item = EventOut<G>;
    fn next_cursor(&self) -> Option<&str> {
        self.next.as_deref()
    }
    fn into_items(self) -> Vec<EventOut<G>> {
        self.events
    }
}
