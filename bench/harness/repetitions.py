"""The main table measured in repetitions: every target once per repetition, in a rotating order, and each figure
combined over the repetitions as the median of its same-repetition ratio to direct."""

import statistics

from harness.suite import TargetResult


def rotated(targets, repetition):
    """The order of one repetition: it starts at target `repetition` mod n, so over n repetitions every target is
    measured first once and last once, and a drift of the machine (heat, page cache, a neighbour) does not always
    fall on the same column."""
    if not targets:
        return []
    start = repetition % len(targets)
    return targets[start:] + targets[:start]


class RepeatedResult:
    """One target's results, one TargetResult per repetition (a repetition in which it did not start has one
    with `skipped` set)."""

    def __init__(self, name, runs=None):
        self.name = name
        self.runs = runs or []

    @classmethod
    def never_run(cls, name, reason):
        """A target that could not be started at all (no binary, not root): one skipped result stands for all."""
        result = TargetResult(name)
        result.skipped = reason
        return cls(name, [result])

    @property
    def skipped(self):
        """Why the target has no figures: set only when it gave none in any repetition."""
        measured = [run for run in self.runs if not run.skipped]
        return None if measured else (self.runs[0].skipped if self.runs else "not measured")

    @property
    def cannot(self):
        """What the target does not speak; the same in every repetition, so the first measured one says it."""
        return next((run.cannot for run in self.runs if not run.skipped), {})

    @property
    def problems(self):
        """Each repetition's problems, marked with its number when there is more than one repetition."""
        if len(self.runs) == 1:
            return list(self.runs[0].problems)
        lines = []
        for number, run in enumerate(self.runs, 1):
            if run.skipped and not self.skipped:
                lines.append(f"repetition {number}: {run.skipped}")
            lines += [f"repetition {number}: {problem}" for problem in run.problems]
        return lines

    def values(self, figure):
        """The figure from each repetition, None where it was not measured."""
        return [None if run.skipped else figure.value(run) for run in self.runs]


class Combined:
    """One figure of one target over the repetitions: the median of its own values, and the median and spread
    of its ratios to direct, each ratio taken within one repetition."""

    def __init__(self, values, direct_values):
        self.values = values
        measured = [value for value in values if value is not None]
        self.median = statistics.median(measured) if measured else None
        self.ratios = ([value / baseline if value is not None and baseline else None
                        for value, baseline in zip(values, direct_values)] if direct_values else [])
        ratios = [ratio for ratio in self.ratios if ratio is not None]
        self.ratio = statistics.median(ratios) if ratios else None
        self.ratio_min = min(ratios) if ratios else None
        self.ratio_max = max(ratios) if ratios else None

    def as_dict(self):
        return {"median": self.median, "each": self.values, "ratio_to_direct": self.ratio,
                "ratio_min": self.ratio_min, "ratio_max": self.ratio_max, "ratio_each": self.ratios}


def combine(results, figure):
    """name -> Combined for one figure; direct itself gets no ratios, and neither does anyone without direct."""
    direct = next((result for result in results if result.name == "direct" and not result.skipped), None)
    direct_values = direct.values(figure) if direct else None
    return {result.name: Combined(result.values(figure), None if result is direct else direct_values)
            for result in results if not result.skipped}
