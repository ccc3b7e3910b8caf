package io.rafestore.drivers.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestSlotsTest {
  @Test
  void neverMoreInFlightThanSlotsAndWaitersStartInOrder() {
    RequestSlots slots = new RequestSlots(2);
    List<Integer> started = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      int n = i;
      slots.run(
          () -> {
            started.add(n);
            return true;
          });
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
    RequestSlots slots = new RequestSlots(1);
    slots.run(() -> true);
    for (int i = 0; i < 100_000; i++) {
      slots.run(() -> false); // cancelled while waiting
    }
    List<String> last = new ArrayList<>();
    slots.run(
        () -> {
          last.add("ran");
          return true;
        });
    slots.release(); // 100,000 skipped waiters in a loop, then the last one starts
    assertThat(last).containsExactly("ran");
    assertThat(slots.inUse()).isEqualTo(1);
    assertThat(slots.waiting()).isZero();
    slots.release();
    assertThat(slots.inUse()).isZero();
  }

  @Test
  void startThatDoesNothingFreesItsSlotAtOnce() {
    RequestSlots slots = new RequestSlots(1);
    slots.run(() -> false);
    assertThat(slots.inUse()).isZero();
  }

  @Test
  void rejectsNoSlots() {
    assertThatThrownBy(() -> new RequestSlots(0)).hasMessageContaining("max");
  }
}
