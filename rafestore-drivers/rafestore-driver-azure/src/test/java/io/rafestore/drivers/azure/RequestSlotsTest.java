package io.rafestore.drivers.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestSlotsTest {
  @Test
  void neverMoreInFlightThanSlotsAndWaitersStartInOrder() {
    RequestSlots slots = new RequestSlots(2, 100);
    List<Integer> started = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      int n = i;
      slots.run(
          () -> {
            started.add(n);
            return true;
          },
          () -> false);
    }
    assertThat(started).containsExactly(0, 1);
    assertThat(slots.inUse()).isEqualTo(2);
    assertThat(slots.waiting()).isEqualTo(3);
    slots.release();
    assertThat(started).containsExactly(0, 1, 2);
    assertThat(slots.inUse()).isEqualTo(2);
    slots.release();
    slots.release();
    slots.release();
    slots.release();
    assertThat(started).containsExactly(0, 1, 2, 3, 4);
    assertThat(slots.inUse()).isZero();
    assertThat(slots.waiting()).isZero();
  }

  @Test
  void waiterThatHasNothingToDoPassesItsSlotOnWithoutDeepRecursion() {
    RequestSlots slots = new RequestSlots(1, 100_001);
    slots.run(() -> true, () -> false);
    for (int i = 0; i < 100_000; i++) {
      slots.run(() -> false, () -> false); // cancelled while waiting
    }
    List<String> last = new ArrayList<>();
    slots.run(
        () -> {
          last.add("ran");
          return true;
        },
        () -> false);
    slots.release(); // 100,000 skipped waiters in a loop, then the last one starts
    assertThat(last).containsExactly("ran");
    assertThat(slots.inUse()).isEqualTo(1);
    assertThat(slots.waiting()).isZero();
    slots.release();
    assertThat(slots.inUse()).isZero();
  }

  @Test
  void startThatDoesNothingFreesItsSlotAtOnce() {
    RequestSlots slots = new RequestSlots(1, 100);
    slots.run(() -> false, () -> false);
    assertThat(slots.inUse()).isZero();
  }

  @Test
  void rejectsNoSlots() {
    assertThatThrownBy(() -> new RequestSlots(0, 1)).hasMessageContaining("max");
    assertThatThrownBy(() -> new RequestSlots(1, -1)).hasMessageContaining("maxWaiting");
  }

  @Test
  void aFullQueueRefusesNewRequestsAfterDroppingAbandonedOnes() {
    RequestSlots slots = new RequestSlots(1, 2);
    List<String> started = new ArrayList<>();
    boolean[] abandoned = new boolean[4];
    assertThat(slots.run(() -> started.add("a"), () -> abandoned[0])).isTrue();
    assertThat(slots.run(() -> started.add("b"), () -> abandoned[1])).isTrue();
    assertThat(slots.run(() -> started.add("c"), () -> abandoned[2])).isTrue();
    // One in flight, two waiting: the queue is full of requests still wanted.
    assertThat(slots.run(() -> started.add("d"), () -> abandoned[3])).isFalse();
    assertThat(slots.waiting()).isEqualTo(2);
    // b's caller gives up: it is dropped to make room.
    abandoned[1] = true;
    assertThat(slots.run(() -> started.add("d"), () -> abandoned[3])).isTrue();
    assertThat(slots.waiting()).isEqualTo(2);
    slots.release();
    slots.release();
    slots.release();
    assertThat(started).containsExactly("a", "c", "d");
    assertThat(slots.inUse()).isZero();
  }
}
