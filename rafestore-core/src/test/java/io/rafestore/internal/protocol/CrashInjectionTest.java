package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudRole;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.StoredValue;
import io.rafestore.WriteReceipt;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A writer that dies at a phase boundary (after its k-th data put, metadata get or metadata put
 * lands) leaves nothing that breaks readers: they read the old version or the new one with its
 * exact bytes, and the restarted writer's next write succeeds and is read back.
 */
class CrashInjectionTest {
  enum Point {
    AFTER_FIRST_DATA_PUT,
    AFTER_ALL_DATA_PUTS,
    DURING_READM,
    AFTER_FIRST_METADATA_PUT,
    AFTER_TWO_METADATA_PUTS
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (ProtocolMode mode : ProtocolMode.values()) {
      for (Point p : Point.values()) {
        out.add(Arguments.of(mode, p, false));
      }
    }
    // Inline values: no data put; the writer dies during readM or writeM.
    for (ProtocolMode mode : List.of(ProtocolMode.PAPER, ProtocolMode.FAST)) {
      for (Point p :
          List.of(
              Point.DURING_READM, Point.AFTER_FIRST_METADATA_PUT, Point.AFTER_TWO_METADATA_PUTS)) {
        out.add(Arguments.of(mode, p, true));
      }
    }
    return out.stream();
  }

  /** Crash points in the middle of packing: the pack's upload, then the packer's writeM. */
  static Stream<Arguments> packingCases() {
    List<Arguments> out = new ArrayList<>();
    for (ProtocolMode mode : List.of(ProtocolMode.PAPER, ProtocolMode.FAST)) {
      for (Point p :
          List.of(
              Point.AFTER_FIRST_DATA_PUT,
              Point.AFTER_ALL_DATA_PUTS,
              Point.AFTER_FIRST_METADATA_PUT,
              Point.AFTER_TWO_METADATA_PUTS)) {
        out.add(Arguments.of(mode, p));
      }
    }
    return out.stream();
  }

  /** Kills the writer's process: from the trigger on, nothing it sends or awaits completes. */
  static final class Process {
    final AtomicBoolean dead = new AtomicBoolean();
    final AtomicBoolean armed = new AtomicBoolean();
    final AtomicInteger dataPuts = new AtomicInteger();
    final AtomicInteger metaPuts = new AtomicInteger();
    final AtomicInteger metaGets = new AtomicInteger();
    final Point point;

    Process(Point point) {
      this.point = point;
    }

    boolean shouldDieAfter(String kind, ObjectKey key, int f) {
      if (!armed.get()) {
        return false;
      }
      boolean meta = key.value().startsWith("m/");
      return switch (point) {
        case AFTER_FIRST_DATA_PUT -> kind.equals("put") && !meta && dataPuts.incrementAndGet() == 1;
        case AFTER_ALL_DATA_PUTS ->
            kind.equals("put") && !meta && dataPuts.incrementAndGet() == f + 1;
        case DURING_READM -> kind.equals("get") && meta && metaGets.incrementAndGet() == 2;
        case AFTER_FIRST_METADATA_PUT ->
            kind.equals("put") && meta && metaPuts.incrementAndGet() == 1;
        case AFTER_TWO_METADATA_PUTS ->
            kind.equals("put") && meta && metaPuts.incrementAndGet() == 2;
      };
    }

    CloudDriver wrap(CloudDriver d, int f) {
      return new ForwardingCloud(d) {
        <T> CompletableFuture<T> call(String kind, ObjectKey key, CompletableFuture<T> inner) {
          if (dead.get()) {
            inner.cancel(true);
            return new CompletableFuture<>();
          }
          CompletableFuture<T> out = new CompletableFuture<>();
          inner.whenComplete(
              (r, e) -> {
                if (e == null && shouldDieAfter(kind, key, f)) {
                  dead.set(true);
                }
                if (!dead.get()) {
                  Futures.completer(out).accept(r, e);
                }
              });
          return out;
        }

        @Override
        public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
          return dead.get() ? new CompletableFuture<>() : call("put", key, d.put(key, data));
        }

        @Override
        public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
          return dead.get() ? new CompletableFuture<>() : call("get", key, d.get(key, range));
        }

        @Override
        public void close() {}
      };
    }
  }

  static RafeStore client(Harness h, ProtocolMode mode, Process process) {
    return client(h, mode, process, 0, 0);
  }

  /** A client writing values up to {@code inline} bytes inline under {@code budget}. */
  static RafeStore client(Harness h, ProtocolMode mode, Process process, long inline, long budget) {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .mode(mode)
            .executor(Runnable::run)
            .scheduler(h.scheduler)
            .closeDrivers(false)
            .inlineThreshold(inline)
            .inlineLogBudget(budget)
            .writer("alice", Harness.ALICE);
    for (TestCloud c : h.clouds) {
      CloudDriver d = process == null ? c : process.wrap(c, 1);
      b.cloud(d, CloudRole.DATA_AND_METADATA, c.rtt());
    }
    return b.build();
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest(name = "{0} crash {1} inline {2}")
  @MethodSource("cases")
  void readersSeeOldOrNewAndTheNextWriteSucceeds(ProtocolMode mode, Point point, boolean inline)
      throws Exception {
    Harness h = new Harness(1, 4).rtts(5, 315, 750, 1200);
    long threshold = inline ? 1024 : 0;
    RafeStore before = client(h, mode, null, threshold, threshold);
    WriteReceipt old = h.run(before.write("k", utf8("old")));
    assertThat(old.info().dataClouds().isEmpty()).isEqualTo(inline);

    Process process = new Process(point);
    RafeStore doomed = client(h, mode, process, threshold, threshold);
    // FAST mode needs a known log to skip readM; teach it the key first.
    h.run(doomed.read("k"));
    process.armed.set(true);
    CompletableFuture<WriteReceipt> dying = doomed.write("k", utf8("new"));
    // Let everything the dead writer had in flight land (well within its operation timeout).
    h.scheduler.advance(java.time.Duration.ofSeconds(30));
    assertThat(process.dead).as("the crash point was reached").isTrue();
    assertThat(dying).isNotDone();

    RafeStore reader = client(h, ProtocolMode.PAPER, null);
    StoredValue seen = h.run(reader.read("k"));
    if (seen.version().equals(old.version())) {
      assertThat(seen.utf8()).isEqualTo("old");
    } else {
      assertThat(seen.version()).isGreaterThan(old.version());
      assertThat(seen.utf8()).isEqualTo("new");
    }

    // The writer restarts (a new client, same identity) and writes again.
    RafeStore restarted = client(h, mode, null, threshold, threshold);
    WriteReceipt next = h.run(restarted.write("k", utf8("after restart")));
    assertThat(next.version()).isGreaterThan(seen.version());
    assertThat(h.run(reader.read("k")).utf8()).isEqualTo("after restart");
    assertThat(h.run(restarted.read("k", old.version())).utf8()).isEqualTo("old");
  }

  /**
   * The writer dies in the middle of packing: after the pack's first data put, after its f+1 data
   * puts (uploaded, named by no log), or during the packer's writeM (the log naming the pack on one
   * or two clouds only). Readers hearing any n - f clouds read every completed version's exact
   * bytes; the restarted writer writes on; every version still reads back.
   */
  @ParameterizedTest(name = "{0} packing, crash {1}")
  @MethodSource("packingCases")
  void aCrashInTheMiddleOfPackingLosesNoVersion(ProtocolMode mode, Point point) throws Exception {
    Harness h = new Harness(1, 4).rtts(5, 315, 750, 1200);
    Process process = new Process(point);
    RafeStore doomed = client(h, mode, process, 1024, 1024);
    java.util.Map<io.rafestore.Version, String> written = new java.util.LinkedHashMap<>();
    written.put(h.run(doomed.write("k", utf8("first"))).version(), "first");
    written.put(h.run(doomed.write("k", utf8("second"))).version(), "second");
    // The packing of "first" (trigger 0) has just started: its data puts land from here on, and
    // the packer's writeM is the next metadata put.
    process.armed.set(true);
    // The packer uploads, waits its commit delay, then writes the log: all within 30 s.
    h.scheduler.advance(java.time.Duration.ofSeconds(30));
    assertThat(process.dead).as("the crash point was reached").isTrue();
    InlineTest.readAllText(h, written, "k");
    RafeStore restarted = client(h, mode, null, 1024, 1024);
    written.put(h.run(restarted.write("k", utf8("third"))).version(), "third");
    InlineTest.readAllText(h, written, "k");
    h.scheduler.advance(java.time.Duration.ofSeconds(30));
    written.put(h.run(restarted.write("k", utf8("fourth"))).version(), "fourth");
    InlineTest.readAllText(h, written, "k");
    for (var e : written.entrySet()) {
      assertThat(h.run(restarted.read("k", e.getKey())).utf8()).isEqualTo(e.getValue());
    }
  }
}
