//! The words a notification is told in beyond its feed: a mail's subject and paragraph, a
//! push message's title and text.

/// A title and a sentence for a notification of `kind` with its feed's `payload` (and the
/// game's spoken name in `game_name`, when the sender added it).
pub fn describe(kind: &str, payload: &serde_json::Value) -> (String, String) {
    let game_id = payload["game_id"].as_str().unwrap_or_default();
    // The game's name as the sender read it (`people::name_games_in`); else kind and id.
    let game = payload["game_name"].as_str().map_or_else(
        || {
            format!(
                "{} game {game_id}",
                kind_name(payload["game_kind"].as_str().unwrap_or_default())
            )
        },
        str::to_owned,
    );
    let by = payload["by"].as_str().unwrap_or("someone");
    match kind {
        "your_turn" => (
            format!("Your turn in {game}"),
            format!("It is your turn in {game}."),
        ),
        "reminder" => {
            let deadline = payload["deadline"].as_str().unwrap_or("soon");
            (
                format!("Your deadline in {game} is near"),
                format!("Your deadline in {game} passes at {deadline}."),
            )
        }
        "game_finished" => (format!("{game} is over"), finished_text(&game, payload)),
        "game_abandoned" => (
            format!("{game} was abandoned"),
            format!("{game} was abandoned by its players' vote: it ends without a result."),
        ),
        "invitation" => (
            format!("{by} invites you to {game}"),
            format!("{by} invites you to {game}."),
        ),
        "mention" => (
            format!("{by} mentioned you in {game}"),
            format!("{by} mentioned you in the chat of {game}."),
        ),
        "test" => (
            "turnpost".to_owned(),
            "Notifications reach this device.".to_owned(),
        ),
        other => (format!("{other} in {game}"), format!("{other} in {game}.")),
    }
}

fn finished_text(game: &str, payload: &serde_json::Value) -> String {
    let scores: Vec<String> = payload["outcome"]["scores"]
        .as_array()
        .map(|scores| scores.iter().map(ToString::to_string).collect())
        .unwrap_or_default();
    if scores.is_empty() {
        format!("{game} is over.")
    } else {
        format!("{game} is over. Scores by seat: {}.", scores.join(", "))
    }
}

/// The game kind's name as its engine gives it (`Eternal Palace`).
fn kind_name(kind: &str) -> &str {
    crate::games::find_game_rules(kind).map_or(kind, |rules| rules.name())
}
