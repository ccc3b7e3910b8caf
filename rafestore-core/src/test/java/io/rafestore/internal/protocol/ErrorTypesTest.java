package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.BlockingRafeStore;
import io.rafestore.IntegrityException;
import io.rafestore.ProbeOptions;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreException;
import io.rafestore.RetentionPolicy;
import io.rafestore.Version;
import io.rafestore.clouds.ByzantineCloud;
import io.rafestore.clouds.FaultyCloud;
import io.rafestore.spi.ObjectKey;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The error contract (issue 14): whatever more than f clouds do, every failure a caller sees from
 * the asynchronous API (its future's {@link ExecutionException}, unwrapped once) or from the
 * blocking facade (thrown, including reads of an opened stream) is a {@link RafeStoreException}:
 * never a raw cancellation, completion, timeout or runtime exception from the client's insides.
 * Every public operation is driven against every fault {@link ByzantineCloud} and {@link
 * FaultyCloud} know, on f+1 and on n-f clouds (f = 1, n = 4), in every mode and data option, on
 * virtual time.
 */
class ErrorTypesTest {
  private static final String KEY = "errors/key";
  private static final Predicate<ObjectKey> METADATA = k -> k.value().startsWith("m/");

  /** The data options under test (as in {@link ByzantineMatrixTest}, plus plain parts). */
  enum Variant {
    PLAIN,
    ENCRYPTED,
    CODED,
    CODED_ENCRYPTED,
    PARTED,
    PARTED_ENCRYPTED;

    RafeStore build(Harness h, ProtocolMode mode) {
      RafeStore.Builder b = h.builder(mode).operationTimeout(Duration.ofSeconds(30));
      if (this == ENCRYPTED || this == CODED_ENCRYPTED || this == PARTED_ENCRYPTED) {
        b.encryptValues(true);
      }
      if (this == CODED || this == CODED_ENCRYPTED) {
        b.erasureCoding(2);
      }
      if (this == PARTED || this == PARTED_ENCRYPTED) {
        b.partSize(1024);
      }
      return b.build();
    }
  }

  /** One way a cloud fails, applied to the clouds of a placement. */
  record Fault(String name, Consumer<TestCloud> apply) {
    @Override
    public String toString() {
      return name;
    }
  }

  /**
   * Flips the last byte of a metadata object: the newest key share of an envelope, else the
   * signature.
   */
  private static byte[] flipLastByte(byte[] b) {
    if (b.length > 0) {
      b[b.length - 1] ^= 1;
    }
    return b;
  }

  /** Every lie of {@link ByzantineCloud} and every failure of {@link FaultyCloud}. */
  static List<Fault> faults() {
    List<Fault> out = new ArrayList<>();
    for (ByzantineCloud.Behaviour b : ByzantineCloud.Behaviour.values()) {
      switch (b) {
        case HONEST -> {}
        case CUSTOM ->
            out.add(
                new Fault(
                    "CUSTOM(metadata's last byte flipped)",
                    c -> c.byzantine().forge(ErrorTypesTest::flipLastByte, METADATA)));
        default -> out.add(new Fault(b.name(), c -> c.byzantine().behave(b)));
      }
    }
    // A driver with a bug: its gets fail with a raw runtime exception, or return null, against
    // the driver contract. The client still reports a RafeStoreException.
    out.add(
        new Fault(
            "CUSTOM(gets fail with IllegalStateException)",
            c ->
                c.byzantine()
                    .forge(
                        bytes -> {
                          throw new IllegalStateException("driver bug");
                        })));
    out.add(new Fault("CUSTOM(gets return null)", c -> c.byzantine().forge(bytes -> null)));
    for (FaultyCloud.Mode m : FaultyCloud.Mode.values()) {
      Consumer<FaultyCloud> apply =
          switch (m) {
            case HEALTHY -> null;
            case CRASHED -> FaultyCloud::crash;
            case FLAKY -> c -> c.failFraction(0.5);
            case HUNG -> FaultyCloud::hang;
            case SLOW -> c -> c.slowDown(Duration.ofSeconds(20));
          };
      if (apply != null) {
        out.add(new Fault(m.name(), c -> apply.accept(c.faulty())));
      }
    }
    return out;
  }

  static Stream<Arguments> scenarios() {
    List<Arguments> out = new ArrayList<>();
    List<List<Integer>> placements = List.of(List.of(0, 1), List.of(1, 2, 3));
    for (ProtocolMode mode : ProtocolMode.values()) {
      List<Variant> variants =
          switch (mode) {
            case PAPER -> List.of(Variant.values());
            case FAST ->
                List.of(Variant.PLAIN, Variant.ENCRYPTED, Variant.CODED, Variant.PARTED_ENCRYPTED);
            case DEPSKY_A, DEPSKY_CA -> List.of(Variant.PLAIN);
          };
      for (Variant v : variants) {
        for (Fault fault : faults()) {
          for (List<Integer> placement : placements) {
            out.add(Arguments.of(mode, v, fault, placement));
          }
        }
      }
    }
    return out.stream();
  }

  private static byte[] value(int seed, int size) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (seed * 31 + i * 7);
    }
    return b;
  }

  @ParameterizedTest(name = "{0} {1} {2} on {3}")
  @MethodSource("scenarios")
  void everyFailureIsARafeStoreException(
      ProtocolMode mode, Variant variant, Fault fault, List<Integer> placement) throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 17, 24, 31);
    try (RafeStore store = variant.build(h, mode)) {
      Version small = h.run(store.write(KEY, value(1, 300))).version();
      Version large = h.run(store.write(KEY, value(2, 3000))).version();
      for (String k : List.of("errors/del-a", "errors/del-b", "errors/purge-a", "errors/purge-b")) {
        h.run(store.write(k, value(3, 100)));
      }
      for (int i : placement) {
        fault.apply().accept(h.clouds.get(i));
      }
      Calls calls = new Calls(h);
      calls.async("write", () -> store.write(KEY, value(4, 2000)));
      calls.async("read", () -> store.read(KEY));
      calls.async("read(version)", () -> store.read(KEY, small));
      calls.async("read(range)", () -> store.read(KEY, large, 1000, 1500));
      calls.async("history", () -> store.history(KEY, Optional.empty(), 10));
      calls.async("verify", () -> store.verify(KEY));
      calls.async("repair", () -> store.repair(KEY));
      calls.async("keys()", store::keys);
      calls.async("keys(after, limit)", () -> store.keys(null, 2));
      calls.async("verifyAll", store::verifyAll);
      calls.async("repairAll", store::repairAll);
      calls.async("probe", () -> store.probe(new ProbeOptions(2, 0, 0, 0)));
      calls.async("collectOrphans", () -> store.collectOrphans(KEY, Duration.ZERO));
      calls.async("delete", () -> store.delete("errors/del-a"));
      calls.async("purge", () -> store.purge("errors/purge-a"));

      BlockingRafeStore b = store.blocking();
      calls.blocking("write", () -> b.write(KEY, value(5, 500)));
      if (mode == ProtocolMode.PAPER || mode == ProtocolMode.FAST) {
        byte[] v = value(6, 2500);
        calls.blocking("write(stream)", () -> b.write(KEY, new ByteArrayInputStream(v), v.length));
      }
      calls.blocking("read", () -> b.read(KEY));
      calls.blocking("read(version)", () -> b.read(KEY, small));
      calls.blocking("read(range)", () -> b.read(KEY, large, 100, 2000));
      calls.blocking("openStream", () -> drain(b.openStream(KEY)));
      calls.blocking("openStream(version)", () -> drain(b.openStream(KEY, large)));
      calls.blocking("history", () -> b.history(KEY, Optional.empty(), 10));
      calls.blocking("verify", () -> b.verify(KEY));
      calls.blocking("repair", () -> b.repair(KEY));
      calls.blocking("keys()", b::keys);
      calls.blocking("keys(after, limit)", () -> b.keys(null, 2));
      calls.blocking("verifyAll", b::verifyAll);
      calls.blocking("repairAll", b::repairAll);
      calls.blocking("probe", () -> b.probe(new ProbeOptions(2, 0, 0, 0)));
      calls.blocking("collectOrphans", () -> b.collectOrphans(KEY, Duration.ZERO));
      calls.blocking(
          "delete",
          () -> {
            b.delete("errors/del-b");
            return null;
          });
      calls.blocking("purge", () -> b.purge("errors/purge-b"));
      // Last, as it removes versions the reads above ask for.
      calls.async("collect", () -> store.collect(KEY, RetentionPolicy.keepLast(1)));
      calls.blocking("collect", () -> b.collect(KEY, RetentionPolicy.keepLast(1)));
      assertThat(calls.violations).as("failures that are not RafeStoreExceptions").isEmpty();
    }
  }

  /**
   * The case issue 14 found: key shares corrupted on more than f clouds (here n - f, so fewer than
   * f+1 valid shares remain). Key recovery fails, which cancels the data fetch; the caller must see
   * the recovery's {@link IntegrityException}, not that cancellation.
   */
  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("sealed")
  void keySharesCorruptedBeyondFIsAnIntegrityException(ProtocolMode mode, Variant variant)
      throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 17, 24, 31);
    // 1 Mbit/s links: the value (100 KB) takes most of a second, a metadata object milliseconds,
    // so key recovery fails while the data fetch is still running.
    h.clouds.forEach(c -> c.bandwidth(1_000_000));
    try (RafeStore store = variant.build(h, mode)) {
      Version v = h.run(store.write(KEY, value(1, 100_000))).version();
      for (int i = 0; i < 3; i++) {
        h.clouds.get(i).byzantine().forge(ErrorTypesTest::flipLastByte, METADATA);
      }
      Calls calls = new Calls(h);
      assertThat(calls.async("read", () -> store.read(KEY)))
          .isInstanceOf(IntegrityException.class)
          .hasMessageContaining("key shares");
      assertThat(calls.async("read(version)", () -> store.read(KEY, v)))
          .isInstanceOf(IntegrityException.class);
      assertThat(calls.async("read(range)", () -> store.read(KEY, v, 10, 20_000)))
          .isInstanceOf(IntegrityException.class);
      BlockingRafeStore b = store.blocking();
      assertThat(calls.blocking("read", () -> b.read(KEY)))
          .isInstanceOf(IntegrityException.class)
          .hasMessageContaining("key shares");
      assertThat(calls.blocking("openStream", () -> drain(b.openStream(KEY))))
          .isInstanceOf(IntegrityException.class);
      assertThat(calls.violations).isEmpty();
    }
  }

  static Stream<Arguments> sealed() {
    return Stream.of(
        Arguments.of(ProtocolMode.PAPER, Variant.ENCRYPTED),
        Arguments.of(ProtocolMode.FAST, Variant.ENCRYPTED),
        Arguments.of(ProtocolMode.PAPER, Variant.CODED_ENCRYPTED),
        Arguments.of(ProtocolMode.PAPER, Variant.PARTED_ENCRYPTED));
  }

  @Test
  void aStreamWhosePartHangsTimesOutOnTheInjectedScheduler() throws Exception {
    Harness h = new Harness(1, 4).rtts(10, 17, 24, 31);
    try (RafeStore store =
        h.builder(ProtocolMode.PAPER)
            .operationTimeout(Duration.ofSeconds(30))
            .partSize(1024)
            .partsInFlight(1)
            .build()) {
      h.run(store.write(KEY, value(1, 3000)));
      Calls calls = new Calls(h);
      Throwable e =
          calls.blocking(
              "openStream",
              () -> {
                try (InputStream in = store.blocking().openStream(KEY)) {
                  // The first part was asked for at open; the next ones find every cloud hung.
                  h.clouds.forEach(c -> c.faulty().hang());
                  return in.readAllBytes();
                }
              });
      assertThat(e)
          .isInstanceOf(RafeStoreException.class)
          .hasMessageContaining("within the operation timeout");
      assertThat(h.scheduler.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(30));
      assertThat(calls.violations).isEmpty();
    }
  }

  @Test
  void whatEscapesTheProtocolReachesCallersAsARafeStoreException() {
    IntegrityException integrity = new IntegrityException("bad bytes", List.of());
    assertThat(Client.callersError("read", new java.util.concurrent.CompletionException(integrity)))
        .isSameAs(integrity);
    assertThat(Client.callersError("read", new CancellationException()))
        .isInstanceOf(RafeStoreException.class)
        .hasMessageContaining("read was cancelled inside the client");
    assertThat(Client.callersError("write", new IllegalStateException("a bug")))
        .isInstanceOf(RafeStoreException.class)
        .hasMessageContaining("write failed")
        .hasCauseInstanceOf(IllegalStateException.class);
    OutOfMemoryError oom = new OutOfMemoryError();
    assertThat(Client.callersError("read", oom)).isSameAs(oom);
    CompletableFuture<Object> cancelled = new CompletableFuture<>();
    cancelled.cancel(true);
    assertThatThrownBy(() -> Client.await(cancelled)).isInstanceOf(RafeStoreException.class);
    assertThatThrownBy(
            () -> Client.await(CompletableFuture.failedFuture(new IllegalArgumentException("x"))))
        .isInstanceOf(RafeStoreException.class);
  }

  @Test
  void anInterruptedBlockingCallThrowsInterruptedIoExceptionAndKeepsTheFlag() throws Exception {
    Harness h = new Harness(1, 4);
    try (RafeStore store = Variant.PLAIN.build(h, ProtocolMode.PAPER)) {
      h.run(store.write(KEY, value(1, 100)));
      h.clouds.forEach(c -> c.faulty().hang());
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      AtomicReference<Boolean> flag = new AtomicReference<>();
      Thread t =
          new Thread(
              () -> {
                try {
                  store.blocking().read(KEY);
                } catch (Throwable e) {
                  thrown.set(e);
                }
                flag.set(Thread.currentThread().isInterrupted());
              });
      t.start();
      while (t.getState() != Thread.State.WAITING) {
        Thread.onSpinWait();
      }
      t.interrupt();
      t.join(10_000);
      assertThat(thrown.get()).isInstanceOf(InterruptedIOException.class);
      assertThat(flag.get()).as("interrupt flag restored").isTrue();
    }
  }

  @Test
  void badArgumentsAreRejectedAtTheCallNamingWhatWasWrong() {
    Harness h = new Harness(1, 4);
    try (RafeStore store = Variant.PLAIN.build(h, ProtocolMode.PAPER)) {
      BlockingRafeStore b = store.blocking();
      assertThatThrownBy(() -> b.read(null)).hasMessageContaining("key");
      assertThatThrownBy(() -> b.read(KEY, (Version) null)).hasMessageContaining("version");
      assertThatThrownBy(() -> b.openStream(KEY, null)).hasMessageContaining("version");
      assertThatThrownBy(() -> b.write(KEY, (byte[]) null)).hasMessageContaining("value");
      assertThatThrownBy(() -> b.write(KEY, (InputStream) null, 1)).hasMessageContaining("in");
      assertThatThrownBy(() -> b.read(KEY, new Version(1, "alice"), -1, 1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("offset");
      assertThatThrownBy(() -> b.collect(KEY, null)).hasMessageContaining("policy");
      assertThatThrownBy(() -> b.collectOrphans(KEY, Duration.ofSeconds(-1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("grace");
      assertThatThrownBy(() -> b.keys(null, 0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("limit");
      assertThatThrownBy(() -> b.probe(null)).hasMessageContaining("options");
    }
  }

  private static Object drain(InputStream in) throws java.io.IOException {
    try (in) {
      return in.readAllBytes();
    }
  }

  /** A blocking call, as a caller makes it. */
  interface BlockingCall {
    Object call() throws Exception;
  }

  /**
   * Runs calls the way a caller would and records every failure that is not a {@link
   * RafeStoreException}.
   */
  private static final class Calls {
    private final Harness h;
    final List<String> violations = new ArrayList<>();

    Calls(Harness h) {
      this.h = h;
    }

    /** An asynchronous call driven on virtual time; returns its failure, or null. */
    Throwable async(String what, Supplier<CompletableFuture<?>> call) {
      CompletableFuture<?> future;
      try {
        future = call.get();
      } catch (RuntimeException e) {
        violation("async " + what + " threw at the call", e);
        return e;
      }
      try {
        h.run(future);
        return null;
      } catch (ExecutionException e) {
        // What a caller's get() reports: the future's failure, unwrapped once.
        check("async " + what, e.getCause());
        return e.getCause();
      } catch (CancellationException e) {
        violation("async " + what + " was cancelled", e);
        return e;
      } catch (IllegalStateException stalled) {
        violation("async " + what + " never completed (no operation timeout?)", stalled);
        return stalled;
      }
    }

    /**
     * A blocking call on its own thread; this thread advances virtual time whenever that thread
     * waits. Returns its failure, or null.
     */
    Throwable blocking(String what, BlockingCall call) throws InterruptedException {
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      Thread t =
          new Thread(
              () -> {
                try {
                  call.call();
                } catch (Throwable e) {
                  thrown.set(e);
                }
              },
              "blocking " + what);
      t.setDaemon(true);
      t.start();
      long idleSince = 0;
      while (t.isAlive()) {
        Thread.State state = t.getState();
        boolean waiting = state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
        if (waiting && h.scheduler.runNext()) {
          idleSince = 0;
          // Give the woken thread a moment to go on before more time passes.
          Thread.yield();
          continue;
        }
        if (waiting) {
          if (idleSince == 0) {
            idleSince = System.nanoTime();
          } else if (System.nanoTime() - idleSince > 5_000_000_000L) {
            t.interrupt();
            t.join();
            violation("blocking " + what + " never completed (no timer left)", null);
            return null;
          }
        }
        Thread.yield();
      }
      t.join();
      Throwable e = thrown.get();
      if (e != null) {
        check("blocking " + what, e);
      }
      return e;
    }

    private void check(String what, Throwable e) {
      if (!(e instanceof RafeStoreException)) {
        violation(what, e);
      }
    }

    private void violation(String what, Throwable e) {
      java.io.StringWriter trace = new java.io.StringWriter();
      if (e != null) {
        e.printStackTrace(new java.io.PrintWriter(trace));
      }
      violations.add(what + ": " + trace);
    }
  }
}
