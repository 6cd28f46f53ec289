"""Player specs: NAME[key=value,...] on the command line, one canonical text per configuration, and
each configuration its own player in records and summaries."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from battlelog.cli import main
from battlelog.errors import BattlelogError
from battlelog.players import make_player
from battlelog.players.base import Seed
from battlelog.players.random import RandomPlayer
from battlelog.players.spec import parse_players, player_spec
from battlelog.report.summary import all_comparisons, summarize_records
from battlelog.rules.config import GameConfig
from battlelog.runner.executors import Limits
from battlelog.runner.executors.local import LocalExecutor
from battlelog.runner.experiment import Experiment, run_experiment
from battlelog.runner.records import GAMES, load_results


class Tunable(RandomPlayer):
    """A player with one option of every type a spec can give, and one it cannot."""

    def __init__(
        self, seed: Seed = None, rate: float = 0.5, loud: bool = False, tag: str = "x", count: int = 1,
        shape: tuple[int, ...] = (),
    ) -> None:
        super().__init__(seed)
        self.rate, self.loud, self.tag, self.count = rate, loud, tag, count


TUNABLE = "test_player_spec:Tunable"


def labels(text: str, engine: str | None = None) -> list[str]:
    return [spec.label for spec in parse_players(text, engine)]


def test_the_canonical_text_sorts_options_and_leaves_defaults_out() -> None:
    specs = parse_players("problog, problog[engine=sdd],mc[samples=200],lookahead[width=3,engine=sdd],lookahead[width=4]")
    assert [s.label for s in specs] == [
        "problog", "problog[engine=sdd]", "mc[samples=200]", "lookahead[engine=sdd,width=3]", "lookahead",
    ]
    assert [dict(s.options) for s in specs] == [{}, {"engine": "sdd"}, {"samples": 200}, {"engine": "sdd", "width": 3}, {}]
    assert player_spec("problog[engine=native]") == player_spec("problog") == player_spec("problog", engine="native")


def test_values_take_the_type_of_the_parameter() -> None:
    spec = player_spec(f"{TUNABLE}[rate=2,loud=TRUE,tag=7,count=-3]")
    assert dict(spec.options) == {"count": -3, "loud": True, "rate": 2.0, "tag": "7"}
    assert spec.label == f"{TUNABLE}[count=-3,loud=true,rate=2.0,tag=7]"
    assert player_spec(spec.label) == spec  # the canonical text reads back as itself
    player = make_player(spec.label, 0)
    assert isinstance(player, Tunable)
    assert (player.rate, player.loud, player.tag, player.count) == (2.0, True, "7", -3)


@pytest.mark.parametrize(
    "text, message",
    [
        (f"{TUNABLE}[rate=fast]", "player test_player_spec:Tunable: option rate=fast is not a finite number"),
        (f"{TUNABLE}[rate=inf]", "option rate=inf is not a finite number"),
        (f"{TUNABLE}[loud=yes]", "option loud=yes is not true or false"),
        (f"{TUNABLE}[count=1.0]", "option count=1.0 is not a whole number"),
        (
            f"{TUNABLE}[shape=3]",
            "player test_player_spec:Tunable: option shape=3 cannot be set here (not an int, float, str or bool)",
        ),
        (f"{TUNABLE}[seed=3]", "does not take option seed (its options: rate, loud, tag, count, shape)"),
        ("pdf[engine=sdd]", "player pdf does not take option engine (its options: none)"),
        ("mc[samples=1][x=2]", "player spec 'mc[samples=1][x=2]' is not NAME or NAME[key=value,...]"),
        ("mc[[samples=1]]", "unbalanced brackets"),
        ("mc[]", "player mc: option '' is not key=value"),
        ("mc[=3]", "player mc: option '=3' is not key=value"),
        ("pdf,mc[samples=3],mc[samples=03]", "player 'mc[samples=03]' is named twice (both are mc[samples=3])"),
    ],
)
def test_bad_specs_are_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(BattlelogError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")) as error:
        parse_players(text)
    assert "\n" not in str(error.value)


def test_an_option_given_as_a_value_is_checked_and_may_not_contradict_the_text() -> None:
    with pytest.raises(BattlelogError, match=r"player mc: option samples=lots is not a whole number"):
        make_player("mc", 0, samples="lots")
    with pytest.raises(BattlelogError, match=r"player mc: option samples is given twice \(5 and 6\)"):
        make_player("mc[samples=5]", 0, samples=6)
    assert make_player("mc[samples=5]", 0, samples=5).samples == 5  # type: ignore[attr-defined]


def test_engine_reaches_every_player_that_takes_one_unless_its_spec_names_one() -> None:
    assert labels("info,pdf,thompson,problog[engine=native],lookahead[engine=problog]", "sdd") == [
        "info[engine=sdd]", "pdf", "thompson[engine=sdd]", "problog", "lookahead[engine=problog]",
    ]  # fmt: skip
    assert labels("problog,info", "native") == ["problog", "info"]
    with pytest.raises(BattlelogError, match=r"^--engine sdd: no player here takes an engine \(pdf, mc\[samples=9\]\)$"):
        parse_players("pdf,mc[samples=9]", "sdd")


@pytest.mark.parametrize(
    "players, message",
    [
        ("mc[samples=0]", "player mc needs a whole number of samples of at least 1, got 0"),
        ("thompson[engine=sdd]", "player thompson needs an engine that samples layouts; 'sdd' does not"),
        ("problog[engine=fast]", "unknown engine 'fast'"),
    ],
)
def test_options_a_player_refuses_are_refused_before_any_game(tmp_path: Path, players: str, message: str) -> None:
    with pytest.raises(BattlelogError, match=message):
        Experiment(GameConfig(4, (3, 2)), tuple(players.split(",")), 2, 0)


def test_configurations_are_players_of_their_own_in_records_summaries_and_comparisons(tmp_path: Path) -> None:
    config = GameConfig(4, (3, 2))
    specs = parse_players("mc[samples=5],mc,problog[engine=native]")
    experiment = Experiment(config, tuple(s.label for s in specs), 6, 3, {s.label: s.options for s in specs})
    with LocalExecutor(Limits(1, None, None)) as executor:
        assert run_experiment(experiment, tmp_path, executor, progress=False).played == 18
    records = load_results(tmp_path)[1]
    assert {(r["player"], json.dumps(r["options"])) for r in records} == {
        ("mc[samples=5]", '{"samples": 5}'), ("mc", "{}"), ("problog", "{}"),
    }  # fmt: skip
    assert [row.player for row in summarize_records(records)] == ["problog", "mc", "mc[samples=5]"]
    assert {(c.a, c.b) for c in all_comparisons(records)} >= {("mc[samples=5]", "mc")}
    # the same run again (spelling the default out) finds everything recorded
    again = Experiment(config, ("mc[samples=5]", "mc", "problog"), 6, 3, {"problog": {"engine": "native"}})
    with LocalExecutor(Limits(1, None, None)) as executor:
        assert run_experiment(again, tmp_path, executor, progress=False).played == 0


def test_records_of_older_versions_that_spell_the_default_engine_out_resume(tmp_path: Path) -> None:
    """Records written before specs existed name problog with {"engine": "native"} (the committed results do)."""
    config = GameConfig(4, (3, 2))
    with LocalExecutor(Limits(1, None, None)) as executor:
        run_experiment(Experiment(config, ("problog",), 2, 0), tmp_path, executor, progress=False)
        lines = (tmp_path / GAMES).read_text().replace('"options": {}', '"options": {"engine": "native"}')
        (tmp_path / GAMES).write_text(lines)
        assert run_experiment(Experiment(config, ("problog",), 3, 0), tmp_path, executor, progress=False).played == 1
        sdd = lines.replace('"options": {"engine": "native"}', '"options": {"engine": "sdd"}')
        (tmp_path / GAMES).write_text(sdd)
        with pytest.raises(BattlelogError, match=r"player problog's recorded games used options \{'engine': 'sdd'\}, not \{\}"):
            run_experiment(Experiment(config, ("problog",), 2, 0), tmp_path, executor, progress=False)


def test_the_committed_results_of_older_versions_still_read() -> None:
    path = Path(__file__).parent.parent / "experiments" / "results" / "standard-10x10"
    first = json.loads(gzip.decompress((path / "games.jsonl.gz").read_bytes()).split(b"\n")[0])
    assert "options" in first
    rows = {row.player: row for row in summarize_records(load_results(path)[1])}
    assert list(rows)[:4] == ["random", "hunt-target", "pdf", "problog"]
    assert round(rows["problog"].scores.ci.mean, 2) == 44.50  # type: ignore[union-attr]  # README's figure


def test_play_takes_a_spec_and_engine_for_any_player_that_takes_one(capsys: pytest.CaptureFixture) -> None:
    assert (
        main(
            [
                "play", "--size", "4", "--ships", "3,2", "--seed", "1", "--quiet", "--player", "lookahead[width=2]", "--engine",
                "sdd",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.splitlines()[-1].startswith("lookahead[engine=sdd,width=2] sank 4x4 3,2 in ")
