"""Box geometry lives once, on Detections: centres, sizes, merging looks that overlap."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detections import Detections, box_corners, box_iou


def dets(boxes, conf, classes=None, alt=False) -> Detections:
    n = len(conf)
    classes = np.arange(n, dtype=np.int64) if classes is None else np.array(classes, np.int64)
    extra = (np.zeros(n, np.int64), np.full(n, 0.1, np.float32)) if alt else (None, None)
    return Detections(np.array(boxes, np.float32), np.array(conf, np.float32), classes, *extra)


def test_centres_sizes_and_narrow_sides():
    found = dets([[0, 0, 40, 60], [100, 10, 190, 50]], [0.9, 0.8])
    assert found.centres.tolist() == [[20, 30], [145, 30]]
    assert np.allclose(found.sizes, [np.sqrt(2400), 60])
    assert found.narrow_sides.tolist() == [40, 40]
    assert box_corners(found.xyxy)[0].tolist() == [[0, 0], [40, 0], [40, 60], [0, 60]]
    assert found.shifted(5, 7).xyxy[0].tolist() == [5, 7, 45, 67]


def test_merge_keeps_the_surer_of_two_readings_of_one_tile_and_orders_by_confidence():
    left = dets([[0, 0, 40, 60], [200, 0, 240, 60]], [0.6, 0.7])
    right = dets([[2, 1, 41, 60]], [0.9])  # the same tile as left's first, from an overlapping window
    merged = Detections.merge([left, right], iou=0.6)
    assert merged.confidence.tolist() == np.array([0.9, 0.7], np.float32).tolist()
    assert merged.xyxy[0].tolist() == [2, 1, 41, 60]


def test_two_looks_score_each_tile_by_their_mean_and_keep_the_first_looks_reading():
    first = dets([[0, 0, 40, 60], [50, 0, 90, 60], [300, 0, 340, 60]], [0.9, 0.4, 0.3], classes=[1, 2, 3])
    mirrored = dets([[100, 0, 140, 60], [150, 0, 191, 60], [198, 0, 238, 60]], [0.8, 0.6, 0.5], classes=[7, 7, 7]).mirrored(240)
    assert mirrored.xyxy.tolist() == [[100, 0, 140, 60], [49, 0, 90, 60], [2, 0, 42, 60]]
    both = first.scored_with(mirrored, same_iou=0.5, apart_iou=0.3)
    # The tile at 0 and the one at 50 were seen twice; the box at 300 once; the one at 100 by the mirror alone.
    assert both.xyxy[:, 0].tolist() == [0, 50, 100, 300]
    assert np.allclose(both.confidence, [0.7, 0.5, 0.4, 0.15])
    assert both.class_id.tolist() == [1, 2, 7, 3]
    # A second-look box straddling a first-look one is neither a second sight nor a new tile.
    straddling = dets([[20, 0, 60, 60]], [0.9])
    assert len(first.scored_with(straddling, same_iou=0.5, apart_iou=0.3)) == 3
    # A second-look box inside a loose box of the first (IoU 0.22) counts: a tile the loose box missed.
    inside = dets([[5, 5, 20, 40]], [0.9])
    assert len(first.scored_with(inside, same_iou=0.5, apart_iou=0.3)) == 4
    # Other readings are scaled with their box's score: the runner-up stays below the reading.
    runner_up = dets([[0, 0, 40, 60]], [0.8], alt=True)
    alone = runner_up.scored_with(Detections.empty(), 0.5, 0.3)
    assert np.allclose(alone.confidence, [0.4]) and np.allclose(alone.other_confidences, [[0.05]])
    assert np.allclose(first.scored_with(Detections.empty(), 0.5, 0.3).confidence, [0.45, 0.2, 0.15])
    assert np.allclose(Detections.empty().scored_with(first, 0.5, 0.3).confidence, [0.45, 0.2, 0.15])


def test_concat_keeps_other_readings_only_when_every_part_has_them():
    with_alt = dets([[0, 0, 10, 10]], [0.5], alt=True)
    assert with_alt.other_class_ids is not None and with_alt.other_class_ids.shape == (1, 1)  # a runner-up alone: one column
    assert Detections.concat([with_alt, with_alt]).other_class_ids is not None
    assert Detections.concat([with_alt, dets([[20, 0, 30, 10]], [0.5])]).other_class_ids is None
    assert len(Detections.concat([Detections.empty()])) == 0
    three = Detections(
        with_alt.xyxy, with_alt.confidence, with_alt.class_id, np.array([[4, 5, 6]]), np.full((1, 3), 0.1, np.float32)
    )
    joined = Detections.concat([three, with_alt])
    assert joined.other_class_ids is not None and joined.other_class_ids.shape == (2, 1)  # as many as the part with fewest
    assert joined.other_class_ids[:, 0].tolist() == [4, 0]


def test_other_readings_are_checked_and_padded():
    found = dets([[0, 0, 10, 10], [20, 0, 30, 10]], [0.9, 0.8], alt=True)
    classes, scores = found.padded_others(3)
    assert classes.tolist() == [[0, 0, 0], [0, 1, 1]] and scores[:, 1:].max() == 0  # filled in with no reading
    assert found[np.array([1])].other_class_ids.tolist() == [[0]]
    with pytest.raises(ValueError, match="come together"):
        Detections(found.xyxy, found.confidence, found.class_id, found.other_class_ids, None)
    with pytest.raises(ValueError, match="same shape"):
        Detections(found.xyxy, found.confidence, found.class_id, np.zeros((2, 2), np.int64), np.zeros((2, 1), np.float32))
    with pytest.raises(ValueError, match=r"shape \(2, k\)"):
        Detections(found.xyxy, found.confidence, found.class_id, np.zeros((3, 1), np.int64), np.zeros((3, 1), np.float32))


def test_box_iou():
    a = np.array([[0, 0, 10, 10], [0, 0, 0, 0]], np.float64)
    b = np.array([[5, 0, 15, 10]], np.float64)
    assert np.allclose(box_iou(a, b), [[50 / 150], [0.0]])


def test_flower_scores_follow_their_boxes():
    found = Detections(
        np.array([[0, 0, 10, 10], [20, 0, 30, 10]], np.float32),
        np.array([0.9, 0.8], np.float32),
        np.array([0, 1], np.int64),
        flower_scores=np.array([0.0, 0.3], np.float32),
    )
    assert found[np.array([1])].flower_scores.tolist() == [np.float32(0.3)]
    assert found.with_class(0, 5).flower_scores is found.flower_scores
    assert found.shifted(5, 0).flower_scores is found.flower_scores
    unmeasured = dets([[40, 0, 50, 10]], [0.7])
    assert Detections.concat([found, unmeasured]).flower_scores.tolist() == [0.0, np.float32(0.3), 0.0]
    assert Detections.concat([unmeasured, unmeasured]).flower_scores is None
    with pytest.raises(ValueError, match=r"flower_scores must have shape \(2,\)"):
        Detections(found.xyxy, found.confidence, found.class_id, flower_scores=np.zeros(3, np.float32))


def test_taking_an_other_reading_keeps_the_first_as_the_likeliest_other():
    found = Detections(
        np.zeros((2, 4), np.float32),
        np.array([0.7, 0.9], np.float32),
        np.array([3, 5], np.int64),
        np.array([[12, 8, 1], [6, 7, 8]], np.int64),
        np.array([[0.2, 0.05, 0.01], [0.05, 0.03, 0.01]], np.float32),
    )
    moved = found.as_other_reading(0, 1)
    assert moved.class_id.tolist() == [8, 5] and np.allclose(moved.confidence, [0.05, 0.9])
    assert moved.other_class_ids.tolist() == [[3, 12, 1], [6, 7, 8]]
    assert np.allclose(moved.other_confidences[0], [0.7, 0.2, 0.01])
    assert found.class_id.tolist() == [3, 5]  # a copy: the readings it came from stay as they were
    with pytest.raises(ValueError, match="no other readings"):
        dets([[0, 0, 10, 10]], [0.5]).as_other_reading(0, 0)
