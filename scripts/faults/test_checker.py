"""Self-test of the fault harness's checker: made-up histories and store snapshots, each with one
known misbehaviour, must fail with the right verdict, and a clean one must pass. No servers.

    python3 -m unittest discover -s scripts/faults -p 'test_*.py'     (from the repository root)
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True   # no __pycache__ in the source tree

import checker  # noqa: E402

DUE_MS = 1_700_000_000_000   # the instant of every item below
DUE_S = DUE_MS / 1000


class History:
    """Builds a client history, a schedule and a store snapshot the way a run records them."""

    def __init__(self):
        self.scheduled = []
        self.events = []
        self.fire_log = []
        self.inbox = []
        self.left = []

    def schedule(self, device, nid, at_ms=DUE_MS):
        self.scheduled.append({"device": device, "id": nid, "at_ms": at_ms})

    def fire(self, device, nid, occurrence, outcome="held", channel="inbox", fired_at=DUE_MS, node="node-1"):
        self.fire_log.append({"device": device, "notification": nid, "occurrence": occurrence, "outcome": outcome,
                              "channel": channel, "scheduled_for": DUE_MS, "fired_at": fired_at, "claimed_by": node})

    def hold(self, device, nid, occurrence, seq, acknowledged=True):
        self.inbox.append({"device": device, "notification": nid, "occurrence": occurrence, "seq": seq,
                           "acknowledged": acknowledged})

    def receive(self, device, nid, occurrence, seq, at=DUE_S + 0.05, node="node-1", via="wake"):
        self.events.append({"type": "receive", "device": device, "notification": nid, "occurrence": occurrence,
                            "seq": seq, "at": at, "node": node, "via": via})

    def ack(self, device, upto, at=DUE_S + 0.1, node="node-2"):
        self.events.append({"type": "ack", "device": device, "upto": upto, "at": at, "node": node, "via": "wake"})

    def delivered(self, device, nid, occurrence, seq):
        """One item the normal way: fired, held, received after its instant, acknowledged."""
        self.schedule(device, nid)
        self.fire(device, nid, occurrence)
        self.receive(device, nid, occurrence, seq)
        self.ack(device, seq)

    def check(self):
        snapshot = {"fire_log": self.fire_log, "inbox": self.inbox, "scheduled_left": self.left}
        counts, examples = checker.check_deliveries(self.scheduled, self.events, snapshot)
        return counts, examples, checker.failing_reasons(counts)


def clean():
    h = History()
    h.delivered("d1", "n1", "o1", 1)
    h.delivered("d1", "n2", "o2", 2)
    h.delivered("d2", "n3", "o3", 3)
    return h


class CheckerTest(unittest.TestCase):
    def assertFailsWith(self, history, verdict, count=1):
        counts, examples, reasons = history.check()
        self.assertEqual(reasons, [f"{verdict}={count}"], f"counts {counts}, examples {examples}")
        return examples[verdict]

    def test_clean_history_passes(self):
        counts, examples, reasons = clean().check()
        self.assertEqual(reasons, [])
        self.assertEqual((counts["scheduled"], counts["received"]), (3, 3))

    def test_resend_before_an_ack_passes(self):
        # At least once until acknowledged: the same item under the same seq again is allowed.
        h = History()
        h.schedule("d1", "n1")
        h.fire("d1", "n1", "o1")
        h.receive("d1", "n1", "o1", 7)
        h.receive("d1", "n1", "o1", 7, at=DUE_S + 0.07, node="node-2")
        h.ack("d1", 7)
        counts, _, reasons = h.check()
        self.assertEqual(reasons, [])
        self.assertEqual(counts["redelivered_unacked"], 1)

    def test_missing_item_fails(self):
        h = clean()
        h.schedule("d2", "n4")            # never fired, never received
        h.left.append(("d2", "n4"))
        examples = self.assertFailsWith(h, "missing")
        self.assertIn("d2/n4 never fired (still scheduled)", examples)

    def test_item_left_in_the_inbox_is_missing(self):
        h = clean()
        h.schedule("d2", "n4")
        h.fire("d2", "n4", "o4")
        h.hold("d2", "n4", "o4", 4, acknowledged=False)
        self.assertIn("d2/n4 still in the inbox", self.assertFailsWith(h, "missing"))

    def test_second_fire_log_row_fails_as_duplicate(self):
        h = clean()
        h.fire("d1", "n1", "o1", node="node-2")   # the same occurrence fired again
        examples = self.assertFailsWith(h, "duplicate")
        self.assertIn("2 fire-log rows for occurrence o1", examples[0])

    def test_second_occurrence_of_one_notification_fails_as_duplicate(self):
        h = clean()
        h.fire("d1", "n1", "o1-again")
        self.assertIn("fired as 2 occurrences", self.assertFailsWith(h, "duplicate")[0])

    def test_one_occurrence_received_under_two_seqs_fails_as_duplicate(self):
        # No ack between the two hand-overs: still one item handed over twice.
        h = History()
        h.schedule("d1", "n1")
        h.fire("d1", "n1", "o1")
        h.receive("d1", "n1", "o1", 5)
        h.receive("d1", "n1", "o1", 9, at=DUE_S + 0.08)
        h.ack("d1", 9)
        self.assertIn("received under seqs [5, 9]", self.assertFailsWith(h, "duplicate")[0])

    def test_one_occurrence_in_the_inbox_under_two_seqs_fails_as_duplicate(self):
        h = clean()
        h.hold("d1", "n1", "o1", 1)
        h.hold("d1", "n1", "o1", 6)        # a second inbox row (a second fire-log row held)
        self.assertIn("in the inbox under seqs [1, 6]", self.assertFailsWith(h, "duplicate")[0])

    def test_early_item_fails(self):
        h = clean()
        h.schedule("d2", "n4")
        h.fire("d2", "n4", "o4", fired_at=DUE_MS - 2500)
        h.receive("d2", "n4", "o4", 4, at=DUE_S - 2.4, node="node-1")
        h.ack("d2", 4)
        examples = self.assertFailsWith(h, "early")
        self.assertTrue(examples[0].startswith("d2/n4 2400 ms early"), examples)

    def test_within_the_batch_window_is_not_early(self):
        h = clean()
        h.schedule("d2", "n4")
        h.fire("d2", "n4", "o4")
        h.receive("d2", "n4", "o4", 4, at=DUE_S - (checker.EARLY_TOLERANCE_MS - 1) / 1000)
        h.ack("d2", 4)
        self.assertEqual(h.check()[2], [])

    def test_acknowledged_unseen_fails(self):
        # Held in the inbox, gone from it (an ack removed it), never received.
        h = clean()
        h.schedule("d2", "n4")
        h.fire("d2", "n4", "o4")
        self.assertEqual(self.assertFailsWith(h, "acked_unseen"), ["d2/n4"])

    def test_received_again_after_a_confirmed_ack_fails_as_twice(self):
        h = clean()
        h.receive("d1", "n1", "o1", 1, at=DUE_S + 0.5)   # after the ack of 1 was answered
        self.assertFailsWith(h, "twice")

    def test_pending_firing_fails(self):
        h = clean()
        h.fire_log[0]["outcome"] = "pending"
        self.assertFailsWith(h, "pending")


class FaultRequiredTest(unittest.TestCase):
    def test_a_fault_that_did_not_happen_fails(self):
        self.assertEqual(len(checker.fault_reasons("terminate", {"backends_terminated": 0})), 1)
        self.assertEqual(len(checker.fault_reasons("silent", {})), 1)
        self.assertEqual(len(checker.fault_reasons("kill9", {"killed_by_signal": 9})), 1)   # not restarted
        self.assertEqual(len(checker.fault_reasons("ackrace", {"acks_in_burst": 40, "ack_nodes_in_burst": 1,
                                                               "ack_nodes_needed": 2})), 1)
        self.assertEqual(len(checker.fault_reasons("skew", {"nodes": 2, "skewed_nodes": 2, "claimed_by_ahead": 0,
                                                            "ahead_skew_ms": 3000})), 2)

    def test_a_fault_that_happened_passes(self):
        self.assertEqual(checker.fault_reasons("pause", {"seen_stopped": 1, "seen_resumed": 1}), [])
        self.assertEqual(checker.fault_reasons("skew", {"nodes": 2, "skewed_nodes": 2, "claimed_by_ahead": 120,
                                                        "ahead_skew_ms": 3000, "ahead_stamp_median_ms": 2990}), [])

    def test_every_scenario_requires_its_fault(self):
        import scenarios
        self.assertEqual(sorted(checker.FAULT_REQUIRED), sorted(scenarios.SCENARIOS))
        for name in scenarios.SCENARIOS:
            self.assertNotEqual(checker.fault_reasons(name, {}), [], name)


if __name__ == "__main__":
    unittest.main()
