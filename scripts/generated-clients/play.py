"""Plays a whole game of every kind through the client openapi-python-client generated from
openapi/openapi.json, with no hand-written dispatch: every answer is parsed by the generated
code, and the test checks that each one became the named type the spec promises
(`TikalViewOut`, `JavaActionBuildPalace`, `EternalPalaceEventRoundStarted`, ...).

Usage: python play.py <base url>   (the generated package must be importable)
"""

import datetime
import json
import random
import sys

import turnpost_client.models as models
from turnpost_client import AuthenticatedClient, Client
from turnpost_client.types import UNSET
from turnpost_client.api.accounts import (
    create_account,
    create_token,
    follow_account,
    get_player,
    set_profile,
)
from turnpost_client.api.games import create_game, get_game, join_game, list_game_kinds, list_games
from turnpost_client.api.notifications import stream_notifications
from turnpost_client.api.play import (
    export_game,
    get_legal_actions,
    get_view,
    list_events,
    post_action,
    stream_events,
)

KINDS = {"tikal": ("Tikal", 2), "java": ("Java", 2), "eternal_palace": ("EternalPalace", 3)}


def pascal(tag):
    return "".join(word[:1].upper() + word[1:] for word in tag.split("_"))


def parsed(response, expected_status, type_name):
    """The parsed body, which must be of the generated class `type_name`."""
    assert response.status_code == expected_status, (response.status_code, response.content[:500])
    body = response.parsed
    assert type(body).__name__ == type_name, (type(body).__name__, type_name, response.content[:300])
    return body


def check_event(event, prefix):
    payload = event.payload
    expected = f"{prefix}Event{pascal(event.type_)}"
    assert type(payload).__name__ == expected, (type(payload).__name__, expected)


def frames(body):
    """The Server-Sent Events of a stream's body, each as a dict of its fields."""
    parsed_frames = []
    for block in body.split("\n\n"):
        fields = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")
        if "event" in fields:
            parsed_frames.append(fields)
    return parsed_frames


def follow_streams(players, game_id, prefix, events):
    """Follows the finished game's stream and the first player's account stream through the
    generated stream methods (with `max_seconds`, so each body ends), each frame's data parsed
    by the generated models."""
    response = stream_events.sync_detailed(id=game_id, client=players[0], after=0, max_seconds=10)
    assert response.status_code == 200, response.status_code
    game_frames = frames(response.content.decode())
    assert game_frames[-1]["event"] == "end", game_frames[-1]
    streamed = [getattr(models, f"{prefix}EventOut").from_dict(json.loads(frame["data"]))
                for frame in game_frames[:-1]]
    for frame, event in zip(game_frames, streamed):
        check_event(event, prefix)
        assert int(frame["id"]) == event.seq and frame["event"] == event.type_
        assert isinstance(event.time, datetime.datetime), type(event.time)
    assert [event.seq for event in streamed] == [event.seq for event in events]
    response = stream_notifications.sync_detailed(client=players[0], after=0, max_seconds=1)
    assert response.status_code == 200, response.status_code
    notifications = [models.NotificationOut.from_dict(json.loads(frame["data"]))
                     for frame in frames(response.content.decode())]
    types = {notification.type_.value for notification in notifications}
    assert {"game_started", "game_finished"} <= types, types
    for notification in notifications:
        assert notification.game_id == game_id
        assert isinstance(notification.created_at, datetime.datetime)
    return len(streamed), len(notifications)


def check_problem(player):
    """A problem's code is read by the generated code as a member of the `ProblemCode` enum."""
    response = get_game.sync_detailed(id="nosuchgame0", client=player)
    assert response.status_code == 404, response.status_code
    problem = response.parsed
    assert type(problem).__name__ == "Problem", (type(problem).__name__, response.content[:300])
    assert isinstance(problem.code, models.ProblemCode), type(problem.code)
    assert problem.code == models.ProblemCode.GAME_NOT_FOUND, problem.code


def check_people(players, names, game_id, prefix):
    """A page, following and the archive, each answer its named type: the finished game is in
    the first player's latest games and in the archive filtered by its players."""
    profile = models.Profile(about="Plays from a generated client.", country="DE", language="de",
                             show_last_seen=True)
    stored = parsed(set_profile.sync_detailed(client=players[0], body=profile), 200, "Profile")
    assert stored.country == "DE" and stored.about == profile.about, stored
    followed = parsed(follow_account.sync_detailed(name=names[0], client=players[1]), 201, "FollowOut")
    assert followed.account.name == names[0]
    page = parsed(get_player.sync_detailed(name=names[0], client=players[1]), 200, "PlayerPage")
    assert page.you_follow and page.about == profile.about and page.followers == 1
    assert [type(game).__name__ for game in page.recent_games] == [f"{prefix}GameSummary"]
    assert page.recent_games[0].id == game_id
    archive = parsed(list_games.sync_detailed(client=players[1], status=models.GameStatus.FINISHED,
                                              public=True, players=",".join(names)), 200, "GameList")
    assert [game.id for game in archive.games] == [game_id], archive.games
    assert type(archive.games[0]).__name__ == f"{prefix}GameSummary"


def play(base, kind, seed):
    prefix, seats = KINDS[kind]
    rng = random.Random(seed)
    anonymous = Client(base_url=base)
    players, names = [], []
    for seat in range(seats):
        name = f"py-{kind.replace('_', '-')}-{seed}-{seat}"
        names.append(name)
        credentials = models.Credentials(name=name, password="s3cret-pass")
        parsed(create_account.sync_detailed(client=anonymous, body=credentials), 201, "AccountCreated")
        token = parsed(create_token.sync_detailed(client=anonymous, body=credentials), 200, "TokenIssued")
        players.append(AuthenticatedClient(base_url=base, token=token.token))
    kinds = list_game_kinds.sync_detailed(client=players[0]).parsed
    assert any(type(entry).__name__ == f"{prefix}GameKind" for entry in kinds)
    body = getattr(models, f"{prefix}NewGame").from_dict({"kind": kind, "seats": seats})
    game = parsed(create_game.sync_detailed(client=players[0], body=body), 201, f"{prefix}GameSummary")
    for player in players[1:]:
        parsed(join_game.sync_detailed(id=game.id, client=player, body=models.NewSeat()), 200, f"{prefix}GameSummary")
    actions = 0
    action_types = set()
    while True:
        summary = parsed(get_game.sync_detailed(id=game.id, client=players[0]), 200, f"{prefix}GameSummary")
        if str(summary.status.value) == "finished":
            break
        seat = rng.choice(summary.to_act)
        player = players[seat]
        legal = parsed(get_legal_actions.sync_detailed(id=game.id, client=player), 200, f"{prefix}LegalActions")
        for action in legal.actions:
            expected = f"{prefix}Action{pascal(action.type_.value)}"
            assert type(action).__name__ == expected, (type(action).__name__, expected)
        view = parsed(get_view.sync_detailed(id=game.id, client=player), 200, f"{prefix}ViewOut")
        assert type(view.view).__name__ == f"{prefix}View"
        action = rng.choice(legal.actions)
        action_types.add(type(action).__name__)
        request = models.NewAction(expected_seq=legal.seq, action=action)
        accepted = parsed(post_action.sync_detailed(id=game.id, client=player, body=request), 200, f"{prefix}ActionAccepted")
        for event in accepted.events:
            check_event(event, prefix)
        actions += 1
        assert actions < 20_000, "the game ends"
    # The log a page of 200 at a time, each page continuing at the last one's `next`.
    events, cursor, pages = [], UNSET, 0
    while True:
        log = parsed(list_events.sync_detailed(id=game.id, client=players[0], limit=200, cursor=cursor),
                     200, f"{prefix}EventLog")
        events.extend(log.events)
        pages += 1
        if log.next_ is None:
            break
        cursor = log.next_
    assert [event.seq for event in events] == list(range(1, log.current_seq + 1))
    assert pages == -(-log.current_seq // 200), (pages, log.current_seq)
    for event in events:
        check_event(event, prefix)
    assert isinstance(summary.created_at, datetime.datetime), type(summary.created_at)
    streamed, notified = follow_streams(players, game.id, prefix, events)
    check_problem(players[0])
    check_people(players, names, game.id, prefix)
    export = parsed(export_game.sync_detailed(id=game.id, client=players[0]), 200, f"{prefix}GameExport")
    assert export.complete and len(export.actions) == actions
    for recorded in export.actions:
        assert type(recorded.action).__name__.startswith(f"{prefix}Action")
    print(f"python client: a whole {kind} game, {actions} actions ({len(action_types)} action types), "
          f"{len(events)} events ({pages} pages), every answer parsed into its named type; the game's stream "
          f"({streamed} events) and the account stream ({notified} notifications) followed; dates "
          f"read as dates, problem codes as enums; a player's page, following and the archive read")


if __name__ == "__main__":
    base = sys.argv[1]
    for index, kind in enumerate(KINDS):
        play(base, kind, seed=index + 1)
