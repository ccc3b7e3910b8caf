package io.rafestore.internal.protocol;

import io.rafestore.clouds.ByzantineCloud;
import io.rafestore.clouds.FaultyCloud;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.WanEmulator;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * One simulated cloud for protocol tests, built from the public decorators: a WAN link (its
 * round-trip time) around a {@link FaultyCloud} around a {@link ByzantineCloud} around a {@link
 * MemoryCloud}. {@link #behave} switches it to one of the fault behaviours the matrix covers.
 */
final class TestCloud implements CloudDriver {
  enum Behaviour {
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

  TestCloud(MemoryCloud store, WanEmulator network, io.rafestore.Scheduler scheduler, long seed) {
    this.byzantine = new ByzantineCloud(store, seed);
    this.faulty = new FaultyCloud(byzantine, scheduler, seed);
    this.wan = network.wrap(faulty, WanEmulator.Link.rtt(Duration.ZERO));
  }

  TestCloud rtt(Duration rtt) {
    wan.setLink(wan.link().withRtt(rtt));
    return this;
  }

  TestCloud bandwidth(long bitsPerSecond) {
    wan.setLink(wan.link().bandwidthBitsPerSecond(bitsPerSecond));
    return this;
  }

  Duration rtt() {
    return wan.link().roundTripTime();
  }

  TestCloud forger(UnaryOperator<byte[]> f) {
    this.forger = f;
    return this;
  }

  TestCloud behave(Behaviour b) {
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

  @Override
  public String id() {
    return wan.id();
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    return wan.put(key, data);
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    return wan.get(key, range);
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    return wan.delete(key);
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    return wan.list(prefix);
  }

  @Override
  public Optional<io.rafestore.spi.Multipart> multipart() {
    return wan.multipart();
  }

  /** The crash and delay layer, for faults {@link #behave} does not name. */
  FaultyCloud faulty() {
    return faulty;
  }

  /** The lying layer, for behaviours {@link #behave} does not name. */
  ByzantineCloud byzantine() {
    return byzantine;
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
    return wan.list(prefix, startAfter, limit);
  }

  @Override
  public void close() {
    wan.close();
  }
}
