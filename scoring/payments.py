"""Payments: 底 + 台 × 台數, the dealer's 2N+1 on either side, and the hk preset's 拉 settlement."""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import ErrorCode
from .hand import Hand, HandError
from .tiles import WIND_LETTERS


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else round(value, 2)


def payers_of(hand: Hand) -> list[str]:
    """Who pays: all three on a self-draw or 八仙過海, else the discarder (or kong robbed, or 七搶一's victim)."""
    ctx = hand.context
    winner = ctx.seat_wind
    others = [seat for seat in WIND_LETTERS if seat != winner]
    if ctx.flower_win == "eight" or (ctx.self_drawn and ctx.flower_win != "seven_rob_one"):
        return others
    settlement = hand.settlement
    discarder = settlement.discarder_seat if settlement else None
    if discarder is None:
        who = "the robbed player" if ctx.flower_win == "seven_rob_one" else "the discarder"
        raise HandError(ErrorCode.BAD_FIELD, f"settlement needs 'discarder_seat' ({who}) for a win that is not self-drawn")
    if discarder == winner:
        raise HandError(ErrorCode.BAD_FIELD, f"the discarder ({discarder}) cannot be the winner's own seat")
    return [discarder]


def settle(
    base: float,
    per_tai: float,
    total: int,
    payers: list[str],
    dealer_seat: str | None,
    dealer_streak: int,
    winner_is_dealer: bool,
) -> dict[str, float]:
    """底 + 台 × 台數 for each payer; when a non-dealer wins, the dealer pays 2N+1 台 more."""
    amounts = {}
    for payer in payers:
        tai = total + (2 * dealer_streak + 1 if not winner_is_dealer and payer == dealer_seat else 0)
        amounts[payer] = _number(base + per_tai * tai)
    return amounts


def payments_for(hand: Hand, total: int) -> dict[str, float]:
    """Each paying seat's amount for a scored hand with a ``settlement`` block."""
    settlement = hand.settlement
    assert settlement is not None
    ctx = hand.context
    return settle(
        settlement.base, settlement.per_tai, total, payers_of(hand), settlement.dealer_seat, ctx.dealer_streak, ctx.dealer
    )


@dataclass
class LaLedger:
    """The hk preset's 拉: debts to the current winner stand until another player wins.

    ``record(winner, amounts)`` takes one hand's payments ({payer: amount}) and returns
    the transfers that settle now as (payer, payee, amount).
    """

    winner: str | None = None
    debts: dict[str, float] = field(default_factory=dict)

    def record(self, winner: str, amounts: dict[str, float]) -> list[tuple[str, str, float]]:
        for seat in (winner, *amounts):
            if seat not in WIND_LETTERS:
                raise ValueError(f"unknown seat {seat!r}; seats are E, S, W, N")
        if winner in amounts:
            raise ValueError("the winner cannot pay themselves")
        if winner == self.winner:
            # Winning again: each payer first adds 50% of the standing debt, then this hand.
            for payer, amount in amounts.items():
                self.debts[payer] = self.debts.get(payer, 0.0) * 1.5 + amount
            return []
        transfers = []
        if self.winner is not None:
            previous = self.winner
            ate_previous = previous in amounts  # the old winner paid the new one this hand
            for debtor, debt in sorted(self.debts.items()):
                share = 0.5 if debtor == winner and ate_previous else 1.0
                transfers.append((debtor, previous, _number(debt * share)))
        self.winner = winner
        self.debts = dict(amounts)
        return transfers

    def standing(self) -> dict[str, float]:
        return {seat: _number(debt) for seat, debt in self.debts.items()}
