package io.rafestore.internal.protocol;

import io.rafestore.clouds.ByzantineCloud;
import io.rafestore.clouds.FaultyCloud;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.WanEmulator;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * One simulated cloud for protocol tests, built from the public decorators: a WAN link (its
 * round-trip time) around a {@link FaultyCloud} around a {@link ByzantineCloud} around a {@link
 * MemoryCloud}. {@link #behave} switches it to one of the fault behaviours the matrix covers.
 */
public final class TestCloud extends ForwardingCloud {
  public enum Behaviour {
    CORRECT,
    CRASH,
    HANG,
    SLOW,
    CORRUPT,
    STALE,
    OTHER_KEY,
    DROP_WRITES,
    GARBLE_METADATA,
    FORGE_METADATA
  }

  private static final Predicate<ObjectKey> METADATA = k -> k.value().startsWith("m/");

  private final FaultyCloud faulty;
  private final ByzantineCloud byzantine;
  private final WanEmulator.EmulatedCloud wan;
  private UnaryOperator<byte[]> forger = b -> b;

  public TestCloud(
      MemoryCloud store, WanEmulator network, io.rafestore.Scheduler scheduler, long seed) {
    this(Layers.of(store, network, scheduler, seed));
  }

  private TestCloud(Layers layers) {
    super(layers.wan);
    this.byzantine = layers.byzantine;
    this.faulty = layers.faulty;
    this.wan = layers.wan;
  }

  /** The decorators, innermost first, built before the outermost is handed to the base. */
  private record Layers(
      ByzantineCloud byzantine, FaultyCloud faulty, WanEmulator.EmulatedCloud wan) {
    static Layers of(
        MemoryCloud store, WanEmulator network, io.rafestore.Scheduler scheduler, long seed) {
      ByzantineCloud byzantine = new ByzantineCloud(store, seed);
      FaultyCloud faulty = new FaultyCloud(byzantine, scheduler, seed);
      return new Layers(
          byzantine, faulty, network.wrap(faulty, WanEmulator.Link.rtt(Duration.ZERO)));
    }
  }

  public TestCloud rtt(Duration rtt) {
    wan.setLink(wan.link().withRtt(rtt));
    return this;
  }

  public TestCloud bandwidth(long bitsPerSecond) {
    wan.setLink(wan.link().bandwidthBitsPerSecond(bitsPerSecond));
    return this;
  }

  public Duration rtt() {
    return wan.link().roundTripTime();
  }

  public TestCloud forger(UnaryOperator<byte[]> f) {
    this.forger = f;
    return this;
  }

  public TestCloud behave(Behaviour b) {
    faulty.heal();
    byzantine.honest();
    switch (b) {
      case CORRECT -> {}
      case CRASH -> faulty.crash();
      case HANG -> faulty.hang();
      case SLOW -> faulty.slowDown(Duration.ofSeconds(20));
      case CORRUPT -> byzantine.behave(ByzantineCloud.Behaviour.CORRUPT);
      case STALE -> byzantine.behave(ByzantineCloud.Behaviour.STALE);
      case OTHER_KEY -> byzantine.behave(ByzantineCloud.Behaviour.OTHER_KEY);
      case DROP_WRITES -> byzantine.behave(ByzantineCloud.Behaviour.DROP_WRITES);
      case GARBLE_METADATA -> byzantine.behave(ByzantineCloud.Behaviour.GARBLE, METADATA);
      case FORGE_METADATA -> byzantine.forge(forger, METADATA);
    }
    return this;
  }

  /** The crash and delay layer, for faults {@link #behave} does not name. */
  public FaultyCloud faulty() {
    return faulty;
  }

  /** The lying layer, for behaviours {@link #behave} does not name. */
  public ByzantineCloud byzantine() {
    return byzantine;
  }
}
