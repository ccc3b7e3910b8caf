package io.rafestore.examples.forum;

import io.rafestore.CloudFault;
import io.rafestore.RafeStoreListener;
import io.rafestore.clouds.ByzantineCloud;
import io.rafestore.clouds.FaultyCloud;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code /faults} page's switches: every cloud of the embedded store sits behind a {@link
 * FaultyCloud} (crash, slow down) and a {@link ByzantineCloud} (corrupt, stale answers), and this
 * turns them on and off. At most one cloud may be faulty at a time, since the store tolerates f =
 * 1: a second is refused, not applied. Also the store's {@link RafeStoreListener}, keeping the last
 * {@value #EVENTS} {@link CloudFault}s it reported.
 *
 * <p>Thread-safe: switching is serialised; events may arrive on any thread.
 */
final class FaultControl implements RafeStoreListener {
  static final int EVENTS = 50;

  /** What a visitor can do to a cloud. */
  enum Action {
    CRASH("crash: every request fails at once"),
    SLOW("slow down: every request starts later"),
    CORRUPT("corrupt: reads return the bytes with a few flipped"),
    STALE("stale: reads return the version put before the current one"),
    HEAL("heal: correct again");

    final String description;

    Action(String description) {
      this.description = description;
    }

    String field() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** One cloud's two decorators. */
  record Switches(FaultyCloud faulty, ByzantineCloud byzantine) {}

  /** A fault the store reported, with when and on which key. */
  record Event(Instant at, String key, CloudFault fault) {}

  private final Map<String, Switches> clouds;
  private final int faultsTolerated;
  private final Deque<Event> events = new ArrayDeque<>();

  FaultControl(Map<String, Switches> clouds, int faultsTolerated) {
    this.clouds = new LinkedHashMap<>(clouds);
    this.faultsTolerated = faultsTolerated;
  }

  List<String> clouds() {
    return List.copyOf(clouds.keySet());
  }

  int faultsTolerated() {
    return faultsTolerated;
  }

  /** The cloud's state in words: "correct", "crashed", "slowed down", "corrupt", "stale". */
  synchronized String state(String cloud) {
    Switches s = clouds.get(cloud);
    if (s.faulty().mode() == FaultyCloud.Mode.CRASHED) {
      return "crashed";
    }
    if (s.faulty().mode() == FaultyCloud.Mode.SLOW) {
      return "slowed down";
    }
    return switch (s.byzantine().behaviour()) {
      case CORRUPT -> "corrupt";
      case STALE -> "stale";
      case HONEST -> s.faulty().mode() == FaultyCloud.Mode.HEALTHY ? "correct" : "faulty";
      default -> "faulty";
    };
  }

  synchronized Optional<String> faultyCloud() {
    for (String c : clouds.keySet()) {
      if (!state(c).equals("correct")) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /**
   * Applies {@code action} to {@code cloud} (replacing that cloud's previous fault).
   *
   * @param delay the extra delay for {@link Action#SLOW}
   * @throws BadRequest if the cloud is unknown
   * @throws Refused if another cloud is faulty already
   */
  synchronized void apply(String cloud, Action action, Duration delay) throws BadRequest, Refused {
    Objects.requireNonNull(action, "action");
    Switches s = clouds.get(cloud);
    if (s == null) {
      throw new BadRequest("field 'cloud' must be one of " + String.join(", ", clouds.keySet()));
    }
    Optional<String> faulty = faultyCloud();
    if (action != Action.HEAL && faulty.isPresent() && !faulty.get().equals(cloud)) {
      throw new Refused(
          "refused: "
              + faulty.get()
              + " is faulty already, and this store tolerates f = "
              + faultsTolerated
              + " faulty cloud; with two, a quorum of n - f = "
              + (clouds.size() - faultsTolerated)
              + " replies could hold too few correct ones. Heal "
              + faulty.get()
              + " first.");
    }
    s.faulty().heal();
    s.byzantine().honest();
    switch (action) {
      case CRASH -> s.faulty().crash();
      case SLOW -> s.faulty().slowDown(delay);
      case CORRUPT -> s.byzantine().behave(ByzantineCloud.Behaviour.CORRUPT);
      case STALE -> s.byzantine().behave(ByzantineCloud.Behaviour.STALE);
      case HEAL -> {}
    }
  }

  /** The most recent reported faults, newest first. */
  synchronized List<Event> events() {
    return new ArrayList<>(events);
  }

  @Override
  public void cloudFault(String key, CloudFault fault) {
    synchronized (this) {
      events.addFirst(new Event(Instant.now(), key, fault));
      while (events.size() > EVENTS) {
        events.removeLast();
      }
    }
  }

  /** A switch that would make more than f clouds faulty. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }
}
