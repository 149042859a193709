//! One way to page every list: `limit` (1 to the list's stated maximum) and an opaque
//! `cursor`, taken from the previous page's `next` field or its `Link: <…>; rel="next"`
//! header. `next` is `null` on the last page. A cursor holds the list's name and the
//! position after the page's last item (keyset paging: a page never skips or repeats an
//! item because others were added before it), base64url-encoded JSON; a cursor of another
//! list, or one it never made, names no page: 404 `cursor_not_found`.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;

use crate::error::ApiError;

/// The `cursor` parameter's text in the spec (every list's).
pub const CURSOR_DESCRIPTION: &str = "Where to continue: the previous page's `next` (also sent as \
its Link header with `rel=\"next\"`); without it, the first page. Opaque: pass it back as \
given, with the same filters.";

/// The longest cursor the server makes, with room to spare.
pub const CURSOR_PATTERN: &str = "^[A-Za-z0-9_-]{1,512}$";

/// The paging parameters of a list with no others: `limit` 1 to 200, 50 by default.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// At most this many (1 to 200, default 50).
    #[param(minimum = 1, maximum = 200, example = 50)]
    pub limit: Option<i64>,
    pub cursor: Option<String>,
}

/// How one list pages: its name (which a cursor carries) and its limits.
#[derive(Debug, Clone, Copy)]
pub struct Pager {
    pub list: &'static str,
    pub default_limit: i64,
    pub max_limit: i64,
}

/// What a request asked for: a position to continue after (none on the first page) and
/// how many items at most.
#[derive(Debug, Clone)]
pub struct PageRequest<P> {
    pub after: Option<P>,
    pub limit: i64,
}

impl<P> PageRequest<P> {
    /// How many rows to read: one more than the page, which tells whether another follows.
    pub fn rows_to_read(&self) -> i64 {
        self.limit + 1
    }

    /// The page's items (at most `limit` of `rows`, read with [`Self::rows_to_read`]) and the
    /// cursor of the next page when more rows were found.
    pub fn cut<T>(&self, pager: &Pager, mut rows: Vec<T>, position: impl Fn(&T) -> P) -> Page<T>
    where
        P: Serialize,
    {
        let limit = usize::try_from(self.limit).unwrap_or(usize::MAX);
        let more = rows.len() > limit;
        rows.truncate(limit);
        let next = if more {
            rows.last().map(|last| pager.cursor(&position(last)))
        } else {
            None
        };
        Page { items: rows, next }
    }
}

impl<P: Serialize + Ord> PageRequest<P> {
    /// A page of a short list read whole (one a quota keeps to a few dozen items) in the
    /// order of `position`: the items after the cursor's, cut to the page.
    pub fn page_of<T>(
        &self,
        pager: &Pager,
        mut items: Vec<T>,
        position: impl Fn(&T) -> P,
    ) -> Page<T> {
        items.sort_by_key(&position);
        let limit = usize::try_from(self.rows_to_read()).unwrap_or(usize::MAX);
        let rows = items
            .into_iter()
            .filter(|item| {
                self.after
                    .as_ref()
                    .is_none_or(|after| position(item) > *after)
            })
            .take(limit)
            .collect();
        self.cut(pager, rows, position)
    }
}

/// One page and the cursor of the next one.
#[derive(Debug)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub next: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct CursorBody<P> {
    list: String,
    after: P,
}

impl Pager {
    pub const fn new(list: &'static str, default_limit: i64, max_limit: i64) -> Self {
        Self {
            list,
            default_limit,
            max_limit,
        }
    }

    /// Reads a request's `cursor` and `limit`: 400 `invalid_query` for a limit out of range,
    /// 404 `cursor_not_found` for a cursor this list did not make.
    pub fn request<P: DeserializeOwned>(
        &self,
        cursor: Option<&str>,
        limit: Option<i64>,
    ) -> Result<PageRequest<P>, ApiError> {
        let limit = limit.unwrap_or(self.default_limit);
        if !(1..=self.max_limit).contains(&limit) {
            return Err(ApiError::bad_request(
                "invalid_query",
                format!("`limit` is 1 to {}", self.max_limit),
            ));
        }
        let after = cursor.map(|cursor| self.position(cursor)).transpose()?;
        Ok(PageRequest { after, limit })
    }

    /// Reads a request that may also name its start the older way (`offset` or `after`):
    /// a cursor, which says where the previous page ended, wins over it (a client may add
    /// `cursor` to the query it started with).
    pub fn request_or<P: DeserializeOwned>(
        &self,
        cursor: Option<&str>,
        limit: Option<i64>,
        older: Option<P>,
    ) -> Result<PageRequest<P>, ApiError> {
        let mut request = self.request(cursor, limit)?;
        if request.after.is_none() {
            request.after = older;
        }
        Ok(request)
    }

    /// The cursor that continues after `position`.
    pub fn cursor<P: Serialize>(&self, position: &P) -> String {
        let body = CursorBody {
            list: self.list.to_owned(),
            after: position,
        };
        // A position is plain data: serialising it cannot fail.
        let json = serde_json::to_vec(&body).unwrap_or_default();
        URL_SAFE_NO_PAD.encode(json)
    }

    /// The position a cursor holds: 400 `invalid_query` for text no cursor has (the
    /// document's pattern), 404 `cursor_not_found` for one this list did not make.
    fn position<P: DeserializeOwned>(&self, cursor: &str) -> Result<P, ApiError> {
        if !is_cursor_text(cursor) {
            return Err(ApiError::bad_request(
                "invalid_query",
                "`cursor` is 1 to 512 of `A-Za-z0-9_-`: pass a page's `next` back as given",
            ));
        }
        let not_found = || {
            ApiError::not_found(
                "cursor_not_found",
                "no page of this list has that `cursor`: pass a page's `next` back as given",
            )
        };
        let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| not_found())?;
        let body: CursorBody<serde_json::Value> =
            serde_json::from_slice(&bytes).map_err(|_| not_found())?;
        if body.list != self.list {
            return Err(not_found());
        }
        serde_json::from_value(body.after).map_err(|_| not_found())
    }
}

/// Whether `text` matches [`CURSOR_PATTERN`].
fn is_cursor_text(text: &str) -> bool {
    (1..=512).contains(&text.len())
        && text
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
}

/// A 200 answer with a page: the body, and the next page's address as a `Link` header
/// (RFC 8288) when there is one: this request's address with `cursor` in place of where it
/// started (`cursor`, `offset` or `after`).
pub fn page_response<T: Serialize>(
    request: &HttpRequest,
    next: Option<&str>,
    body: &T,
) -> HttpResponse {
    let mut response = HttpResponse::Ok();
    if let Some(next) = next {
        response.insert_header((header::LINK, next_link(request, next)));
    }
    response.json(body)
}

fn next_link(request: &HttpRequest, next: &str) -> String {
    let kept = url::form_urlencoded::parse(request.query_string().as_bytes())
        .filter(|(name, _)| !matches!(name.as_ref(), "cursor" | "offset" | "after"));
    let query = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(kept)
        .append_pair("cursor", next)
        .finish();
    format!("<{}?{query}>; rel=\"next\"", request.path())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAMES: Pager = Pager::new("games", 50, 200);
    const BLOCKS: Pager = Pager::new("blocks", 50, 200);

    #[test]
    fn a_cursor_gives_back_its_position() {
        let cursor = GAMES.cursor(&(17_i64, "k3m9q2x7wa"));
        assert!(is_cursor_text(&cursor));
        let request: PageRequest<(i64, String)> = GAMES.request(Some(&cursor), None).unwrap();
        assert_eq!(request.after, Some((17, "k3m9q2x7wa".to_owned())));
        assert_eq!(request.limit, 50);
    }

    #[test]
    fn a_cursor_of_another_list_or_made_up_names_no_page() {
        let cursor = BLOCKS.cursor(&"bob");
        for unknown in [cursor.as_str(), "bm9wZQ", "e30", "AAAA", "x"] {
            let error = GAMES.request::<String>(Some(unknown), None).unwrap_err();
            assert_eq!(error.problem().code, "cursor_not_found", "{unknown}");
        }
        for malformed in ["%%%", "", "a b", &"a".repeat(513)] {
            let error = GAMES.request::<String>(Some(malformed), None).unwrap_err();
            assert_eq!(error.problem().code, "invalid_query", "{malformed}");
        }
    }

    #[test]
    fn limits_outside_the_range_are_refused() {
        for limit in [0, -1, 201] {
            let error = GAMES.request::<i64>(None, Some(limit)).unwrap_err();
            assert_eq!(error.problem().code, "invalid_query");
        }
        assert_eq!(GAMES.request::<i64>(None, Some(200)).unwrap().limit, 200);
    }

    #[test]
    fn a_cursor_wins_over_an_older_start() {
        let cursor = GAMES.cursor(&3_i64);
        let both = GAMES
            .request_or::<i64>(Some(&cursor), None, Some(2))
            .unwrap();
        assert_eq!(both.after, Some(3));
        let older = GAMES.request_or::<i64>(None, None, Some(2)).unwrap();
        assert_eq!(older.after, Some(2));
    }

    #[test]
    fn the_page_is_cut_and_says_whether_more_follow() {
        let request: PageRequest<i64> = GAMES.request(None, Some(2)).unwrap();
        let page = request.cut(&GAMES, vec![1_i64, 2, 3], |item| *item);
        assert_eq!(page.items, vec![1, 2]);
        let next: PageRequest<i64> = GAMES.request(page.next.as_deref(), None).unwrap();
        assert_eq!(next.after, Some(2));
        let last = request.cut(&GAMES, vec![1_i64, 2], |item| *item);
        assert_eq!(last.next, None);
    }

    #[test]
    fn a_short_list_read_whole_pages_the_same_way() {
        let request: PageRequest<i64> = BLOCKS.request(None, Some(2)).unwrap();
        let first = request.page_of(&BLOCKS, vec![5_i64, 2, 3, 4, 1], |item| *item);
        assert_eq!(first.items, vec![1, 2]);
        let request: PageRequest<i64> = BLOCKS.request(first.next.as_deref(), Some(2)).unwrap();
        let second = request.page_of(&BLOCKS, vec![1_i64, 2, 3, 4, 5], |item| *item);
        assert_eq!(second.items, vec![3, 4]);
        let request: PageRequest<i64> = BLOCKS.request(second.next.as_deref(), Some(2)).unwrap();
        let last = request.page_of(&BLOCKS, vec![1_i64, 2, 3, 4, 5], |item| *item);
        assert_eq!((last.items, last.next), (vec![5], None));
    }
}
