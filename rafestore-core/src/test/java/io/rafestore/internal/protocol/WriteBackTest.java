package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.HistoryPage;
import io.rafestore.JournalException;
import io.rafestore.JournaledWrite;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.StoredValue;
import io.rafestore.VersionInfo;
import io.rafestore.WriteBack;
import io.rafestore.WriteReceipt;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.internal.journal.Journal;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.Logs;
import io.rafestore.internal.protocol.metadata.MetadataCodec;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Write-back through the client, on in-memory clouds in real time (the journal fsyncs real files):
 * acknowledgement then the clouds, read-your-writes, flush, call order with write-through writes,
 * the full journal, and the replay after a crash: a write whose writeM reached one cloud is redone
 * as the same version, a write that never reached writeM is written once.
 */
class WriteBackTest {
  @TempDir Path dir;

  private final KeyPair alice = SigningKeys.generate();
  private final List<MemoryCloud> clouds =
      List.of(
          new MemoryCloud("c0"),
          new MemoryCloud("c1"),
          new MemoryCloud("c2"),
          new MemoryCloud("c3"));
  private final List<RafeStore> open = new ArrayList<>();

  @AfterEach
  void closeAll() {
    for (RafeStore s : open) {
      s.close();
    }
  }

  /**
   * One client's view of a cloud: its metadata or data puts can be held (until a future completes,
   * or forever), its metadata gets withheld (never answered).
   */
  static final class Switched extends ForwardingCloud {
    volatile CompletableFuture<Void> metadataPuts = CompletableFuture.completedFuture(null);
    volatile CompletableFuture<Void> dataPuts = CompletableFuture.completedFuture(null);
    volatile boolean withholdMetadata;
    final java.util.concurrent.atomic.AtomicInteger metadataPutCalls =
        new java.util.concurrent.atomic.AtomicInteger();

    Switched(CloudDriver d) {
      super(d);
    }

    @Override
    public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
      if (key.value().startsWith("m/")) {
        metadataPutCalls.incrementAndGet();
      }
      CompletableFuture<Void> gate = key.value().startsWith("m/") ? metadataPuts : dataPuts;
      return gate.thenCompose(x -> super.put(key, data));
    }

    @Override
    public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
      if (withholdMetadata && key.value().startsWith("m/")) {
        return new CompletableFuture<>();
      }
      return super.get(key, range);
    }
  }

  private List<Switched> switched() {
    List<Switched> out = new ArrayList<>();
    for (MemoryCloud c : clouds) {
      out.add(new Switched(c));
    }
    return out;
  }

  private RafeStore client(List<? extends CloudDriver> drivers, WriteBack wb, ProtocolMode mode) {
    RafeStore.Builder b = RafeStore.builder().writer("alice", alice).mode(mode);
    for (CloudDriver d : drivers) {
      b.cloud(d);
    }
    b.closeDrivers(false);
    if (wb != null) {
      b.writeBack(wb);
    }
    RafeStore s = b.build();
    open.add(s);
    return s;
  }

  /** A reader that hears every cloud (and so both logs of a fork). */
  private RafeStore reader() {
    RafeStore.Builder b = RafeStore.builder().trustWriter("alice", alice.getPublic());
    for (MemoryCloud c : clouds) {
      b.cloud(c);
    }
    RafeStore s = b.closeDrivers(false).build();
    open.add(s);
    return s;
  }

  private WriteBack journal() {
    return WriteBack.journal(dir.resolve("journal"));
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(20, TimeUnit.SECONDS);
  }

  /** Flushes {@code s}, again while a flush fails (at most 30 s). */
  private static void flushed(RafeStore s) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        get(s.flush());
        return;
      } catch (java.util.concurrent.ExecutionException e) {
        if (System.nanoTime() - until > 0) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  private static List<VersionInfo> history(RafeStore s, String key) throws Exception {
    HistoryPage p = s.blocking().history(key, Optional.empty(), 1000);
    return p.versions();
  }

  /**
   * A write-through write of a key waits until this client's write-back writes of it are on the
   * clouds, then runs. If the operation timeout ends it after it started, the timeout reaches the
   * write itself: its held data upload is given up and no log is written, so the key's history
   * keeps only the write-back write. (The timeout completed only the future the wait made, and the
   * write went on to land once its uploads were let through.)
   */
  @Test
  void aWriteTheTimeoutEndsAfterItsWaitForWriteBackStopsThere() throws Exception {
    List<Switched> held = switched();
    CompletableFuture<Void> logs = new CompletableFuture<>();
    CompletableFuture<Void> data = new CompletableFuture<>();
    held.forEach(c -> c.metadataPuts = logs);
    RafeStore.Builder b =
        RafeStore.builder()
            .writer("alice", alice)
            .mode(ProtocolMode.PAPER)
            .operationTimeout(java.time.Duration.ofSeconds(1))
            .writeBack(journal())
            .closeDrivers(false);
    held.forEach(b::cloud);
    RafeStore s = b.build();
    open.add(s);
    // Inline (log only): its upload waits for the logs' gate.
    get(s.writeBack("k", utf8("journaled")));
    byte[] big = new byte[200_000];
    big[0] = 1;
    CompletableFuture<WriteReceipt> late = s.write("k", big);
    held.forEach(c -> c.dataPuts = data);
    Thread.sleep(300);
    // The write-back write lands; the write-through write starts and its data puts are held.
    logs.complete(null);
    assertThatThrownBy(() -> get(late))
        .hasRootCauseInstanceOf(java.util.concurrent.TimeoutException.class);
    data.complete(null);
    flushed(s);
    // The old code's write went on here; in-memory clouds finish it in milliseconds.
    Thread.sleep(500);
    flushed(s);
    assertThat(history(reader(), "k")).hasSize(1);
    assertThat(get(reader().read("k")).value()).isEqualTo(utf8("journaled"));
  }

  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void acknowledgedWritesReachTheCloudsOnceEachInCallOrder(ProtocolMode mode) throws Exception {
    RafeStore s = client(clouds, journal(), mode);
    List<CompletableFuture<JournaledWrite>> acks = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      // Large and small values: whole uploads and inline ones.
      byte[] v = i % 3 == 0 ? new byte[200_000] : utf8("value " + i);
      if (v.length > 100) {
        v[0] = (byte) i;
      }
      acks.add(s.writeBack("k" + (i % 3), v));
    }
    List<JournaledWrite> done = new ArrayList<>();
    for (CompletableFuture<JournaledWrite> a : acks) {
      done.add(get(a));
    }
    get(s.flush());
    for (int k = 0; k < 3; k++) {
      List<VersionInfo> h = history(reader(), "k" + k);
      assertThat(h).hasSize(10);
      // Newest first; the writes of one key in call order.
      List<io.rafestore.Version> expected = new ArrayList<>();
      for (int i = 27 + k; i >= 0; i -= 3) {
        WriteReceipt r = done.get(i).onClouds().getNow(null);
        assertThat(r).isNotNull();
        expected.add(r.version());
      }
      assertThat(h).extracting(VersionInfo::version).containsExactlyElementsOf(expected);
    }
    StoredValue latest = reader().blocking().read("k1");
    assertThat(latest.utf8()).isEqualTo("value 28");
    s.close();
    try (Journal j = Journal.open(dir.resolve("journal"), 1 << 20, 10)) {
      assertThat(j.recovered()).as("every intent marked done").isEmpty();
    }
  }

  /**
   * Every cloud's metadata puts wait for the returned future: no log reaches a cloud until it is
   * completed.
   */
  private static CompletableFuture<Void> holdMetadataPuts(List<Switched> sw) {
    CompletableFuture<Void> release = new CompletableFuture<>();
    for (Switched c : sw) {
      c.metadataPuts = release;
    }
    return release;
  }

  @Test
  void theClientReadsItsJournaledWriteUntilItIsOnTheCloudsAndWritesKeepCallOrder()
      throws Exception {
    List<Switched> sw = switched();
    RafeStore s = client(sw, journal(), ProtocolMode.PAPER);
    s.blocking().write("k", utf8("old"));
    CompletableFuture<Void> release = holdMetadataPuts(sw);
    JournaledWrite w = s.blocking().writeBack("k", utf8("journaled"));
    StoredValue own = s.blocking().read("k");
    assertThat(own.servedBy()).isEqualTo(StoredValue.FROM_JOURNAL);
    assertThat(own.utf8()).isEqualTo("journaled");
    assertThat(reader().blocking().read("k").utf8()).as("not on the clouds yet").isEqualTo("old");
    // A write-through write of the key waits for the journaled one: call order.
    CompletableFuture<WriteReceipt> later = s.write("k", utf8("later"));
    CompletableFuture<Void> flushed = s.flush();
    Thread.sleep(100);
    assertThat(flushed).isNotDone();
    assertThat(later).isNotDone();
    release.complete(null);
    get(flushed);
    WriteReceipt onClouds = get(w.onClouds());
    WriteReceipt after = get(later);
    assertThat(after.version()).isGreaterThan(onClouds.version());
    List<VersionInfo> h = history(reader(), "k");
    assertThat(h).extracting(VersionInfo::version).startsWith(after.version(), onClouds.version());
    assertThat(s.blocking().read("k").servedBy()).isNotEqualTo(StoredValue.FROM_JOURNAL);
    assertThat(s.blocking().read("k").utf8()).isEqualTo("later");
  }

  /** The signed log of alice for {@code key} as {@code cloud} stores it. */
  private MetadataLog storedLog(MemoryCloud cloud, String key) throws Exception {
    byte[] bytes = get(cloud.get(Names.metadataObject(key, "alice"), Optional.empty()));
    return new MetadataCodec()
        .decodeEnvelope(bytes, key, "alice", alice.getPublic(), 64 << 20)
        .log();
  }

  /**
   * A backlog larger than one inline round (half the inline budget) goes in bulk rounds: the values
   * packed first, one pack on f+1 data clouds, the log naming them packed and growing by no inline
   * bytes; every version is on the clouds once, in call order, with its exact bytes, and another
   * client reads each of them back.
   */
  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void aBacklogBeyondOneInlineRoundIsWrittenInBulkRoundsOfPackedValues(ProtocolMode mode)
      throws Exception {
    List<Switched> sw = switched();
    RafeStore s = client(sw, journal(), mode);
    CompletableFuture<Void> release = holdMetadataPuts(sw);
    int writes = 400;
    List<byte[]> values = new ArrayList<>();
    List<CompletableFuture<JournaledWrite>> acks = new ArrayList<>();
    java.util.SplittableRandom random = new java.util.SplittableRandom(7);
    for (int i = 0; i < writes; i++) {
      byte[] v = new byte[1000];
      random.nextBytes(v);
      values.add(v);
      acks.add(s.writeBack("k", v));
    }
    List<JournaledWrite> done = new ArrayList<>();
    for (CompletableFuture<JournaledWrite> a : acks) {
      done.add(get(a));
    }
    // Every write is journaled while the first round's writeM is held: a backlog of 400 KB, more
    // than the 64 KiB one inline round takes.
    release.complete(null);
    get(s.flush());
    List<io.rafestore.Version> versions = new ArrayList<>();
    for (JournaledWrite w : done) {
      WriteReceipt r = w.onClouds().getNow(null);
      assertThat(r).isNotNull();
      versions.add(r.version());
    }
    assertThat(versions).as("call order").isSorted().doesNotHaveDuplicates();
    RafeStore reader = reader();
    List<VersionInfo> h = history(reader, "k");
    assertThat(h).hasSize(writes);
    for (int i = 0; i < writes; i++) {
      assertThat(reader.blocking().read("k", versions.get(i)).value())
          .as("version %d", i)
          .isEqualTo(values.get(i));
    }
    MetadataLog log = storedLog(clouds.get(0), "k");
    long packed = log.entries().stream().filter(e -> e.coding() == LogEntry.Coding.PACKED).count();
    assertThat(packed).as("values written in bulk rounds, packed").isGreaterThan(writes / 2);
    assertThat(Logs.inlineBytes(log)).isLessThanOrEqualTo(128L * 1024);
    // The bulk rounds' packs: each on f+1 = 2 data clouds, holding hundreds of values.
    java.util.Map<String, Integer> holders = new java.util.HashMap<>();
    for (LogEntry e : log.entries()) {
      if (e.coding() == LogEntry.Coding.PACKED) {
        holders.merge(e.pack().object(), e.holders().size(), Math::max);
      }
    }
    assertThat(holders.values()).allMatch(n -> n == 2);
    assertThat((long) holders.size()).as("packs").isLessThan(packed / 10);
    s.close();
    try (Journal j = Journal.open(dir.resolve("journal"), 1 << 20, 10)) {
      assertThat(j.recovered()).as("every intent marked done").isEmpty();
    }
  }

  @Test
  void aCallerCompletingOrCancellingItsOnCloudsFutureDoesNotTouchTheWrite() throws Exception {
    List<Switched> sw = switched();
    CompletableFuture<Void> release = holdMetadataPuts(sw);
    RafeStore s = client(sw, journal(), ProtocolMode.PAPER);
    JournaledWrite w = s.blocking().writeBack("k", utf8("v"));
    w.onClouds().cancel(true);
    w.onClouds().complete(null);
    w.onClouds().completeExceptionally(new IllegalStateException("a caller's"));
    assertThat(w.onClouds()).as("each call a new copy of the write's future").isNotDone();
    CompletableFuture<Void> flushed = s.flush();
    Thread.sleep(100);
    assertThat(flushed).isNotDone();
    release.complete(null);
    get(flushed);
    WriteReceipt onClouds = get(w.onClouds());
    assertThat(onClouds).isNotNull();
    assertThat(history(reader(), "k"))
        .extracting(VersionInfo::version)
        .containsExactly(onClouds.version());
    assertThat(reader().blocking().read("k").utf8()).isEqualTo("v");
  }

  @Test
  void aFullJournalFailsAtOnceOrMakesTheWriteWait() throws Exception {
    List<Switched> sw = switched();
    CompletableFuture<Void> release = holdMetadataPuts(sw);
    RafeStore failing =
        client(sw, journal().maxEntries(1).whenFull(WriteBack.WhenFull.FAIL), ProtocolMode.PAPER);
    get(failing.writeBack("k", utf8("one")));
    assertThatThrownBy(() -> failing.blocking().writeBack("k", utf8("two")))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.FULL);
              assertThat(e.getMessage()).contains(dir.resolve("journal").toString());
            });
    failing.close();

    RafeStore waiting = client(sw, journal().maxEntries(1), ProtocolMode.PAPER);
    // The replayed "one" fills the journal again.
    CompletableFuture<JournaledWrite> two = waiting.writeBack("k", utf8("two"));
    Thread.sleep(200);
    assertThat(two).as("waits for space").isNotDone();
    release.complete(null);
    get(get(two).onClouds());
    assertThat(history(reader(), "k")).hasSize(2);
    assertThat(reader().blocking().read("k").utf8()).isEqualTo("two");
  }

  @Test
  void aBlockingWriteBackWritesItsOwnFrameWhileTheAsynchronousOneLeavesItToTheWriterThread()
      throws Exception {
    RafeStore s = client(clouds, journal(), ProtocolMode.PAPER);
    var journal = ((Client) s).writeBackQueue().journal();
    for (int i = 0; i < 20; i++) {
      // With no frame in flight the calling thread leads, writing and forcing the frame itself
      // (Journal.lead); when the writer thread is writing one (a commit record or done marks of
      // the background upload, the zeros' top-up) it waits for that frame instead, which takes
      // its record: so most of these lead, not necessarily all.
      JournaledWrite w = s.blocking().writeBack("k", utf8("value " + i));
      assertThat(w.key()).isEqualTo("k");
    }
    long led = journal.framesLed();
    assertThat(led).isBetween(1L, 20L);
    // A caller that pipelines asynchronous write-backs never waits for an fsync per call: the
    // writer thread groups its records, and no frame is led.
    List<CompletableFuture<JournaledWrite>> pending = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      pending.add(s.writeBack("p" + i, utf8("pipelined " + i)));
    }
    for (CompletableFuture<JournaledWrite> w : pending) {
      get(w);
    }
    assertThat(journal.framesLed()).isEqualTo(led);
    get(s.flush());
    assertThat(history(reader(), "k")).hasSize(20);
    assertThat(reader().blocking().read("p49").utf8()).isEqualTo("pipelined 49");
    s.close();
  }

  @Test
  void anAcknowledgementsCallbackRunsOnTheAcknowledgerWhereABlockingCallIsRefused()
      throws Exception {
    List<Switched> sw = switched();
    CompletableFuture<Void> release = holdMetadataPuts(sw);
    RafeStore s = client(sw, journal().maxEntries(1), ProtocolMode.PAPER);
    get(s.writeBack("k", utf8("one")));
    // The journal is full until "one" is on the clouds: "two" is not acknowledged before the
    // callback below is attached, so the callback runs where the journal completes the future.
    CompletableFuture<JournaledWrite> two = s.writeBack("k", utf8("two"));
    assertThat(two).isNotDone();
    CompletableFuture<String> thread = new CompletableFuture<>();
    CompletableFuture<Throwable> blocking = new CompletableFuture<>();
    two.thenAccept(
        w -> {
          thread.complete(Thread.currentThread().getName());
          try {
            // Would wait for its own acknowledgement, which only this thread can complete.
            s.blocking().writeBack("k", utf8("three"));
            blocking.complete(null);
          } catch (Throwable e) {
            blocking.complete(e);
          }
        });
    release.complete(null);
    assertThat(get(thread)).startsWith("rafestore-journal-ack ");
    assertThat(get(blocking))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("acknowledger thread");
    get(get(two).onClouds());
    get(s.flush());
    assertThat(history(reader(), "k")).extracting(VersionInfo::size).containsExactly(3L, 3L);
  }

  @Test
  void aJournalThatCannotBeWrittenIsReportedWhenTheClientIsBuilt() throws Exception {
    Path file = Files.writeString(dir.resolve("not-a-directory"), "x");
    Path bad = file.resolve("journal");
    assertThatThrownBy(() -> client(clouds, WriteBack.journal(bad), ProtocolMode.PAPER))
        .isInstanceOf(java.io.UncheckedIOException.class)
        .cause()
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
              assertThat(e.getMessage()).contains(bad.toString());
            });
  }

  @Test
  void writeBackNeedsAJournalAWriterAndARafeStoreMode() {
    RafeStore plain = client(clouds, null, ProtocolMode.PAPER);
    assertThatThrownBy(() -> plain.writeBack("k", utf8("v")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Builder.writeBack");
    assertThatThrownBy(
            () ->
                RafeStore.builder()
                    .trustWriter("alice", alice.getPublic())
                    .cloud(clouds.get(0))
                    .cloud(clouds.get(1))
                    .cloud(clouds.get(2))
                    .cloud(clouds.get(3))
                    .writeBack(journal())
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("writeBack: needs a writer");
    assertThatThrownBy(() -> client(clouds, journal(), ProtocolMode.DEPSKY_A))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("writeBack: needs mode PAPER or FAST");
  }

  /**
   * The hard case: the crashed client's writeM signed the entry and its log reached c0 only. The
   * next client does not hear c0 (withheld) and must not write the value as a second version: it
   * carries the recorded entry into its own log, so a reader that hears both logs merges one
   * version with the crashed write's own version.
   */
  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void aWriteWhoseWriteMReachedOneCloudIsRedoneAsTheSameVersion(ProtocolMode mode)
      throws Exception {
    for (boolean inline : new boolean[] {false, true}) {
      String key = "k-" + inline;
      byte[] value = inline ? utf8("small " + mode) : new byte[100_000];
      value[0] = 42;
      List<Switched> a = switched();
      for (int i = 1; i < 4; i++) {
        a.get(i).metadataPuts = new CompletableFuture<>(); // never
      }
      RafeStore crashed = client(a, journal(), mode);
      JournaledWrite w = get(crashed.writeBack(key, value));
      ObjectKey log = Names.metadataObject(key, "alice");
      waitUntil(
          () -> {
            CompletableFuture<byte[]> got = clouds.get(0).get(log, Optional.empty());
            return got.isDone() && !got.isCompletedExceptionally();
          });
      assertThat(w.onClouds()).isNotDone();
      // Its entry is signed: the crashed client reads its own write under its final version.
      StoredValue own = crashed.blocking().read(key);
      assertThat(own.servedBy()).isEqualTo(StoredValue.FROM_JOURNAL);
      io.rafestore.Version signed = own.version();
      crashed.close(); // as a crash for the journal: intent and commit kept, no done mark

      List<Switched> b = switched();
      b.get(0).withholdMetadata = true;
      b.get(0).metadataPuts = new CompletableFuture<>(); // c0 keeps the crashed client's log
      RafeStore restarted = client(b, journal(), mode);
      get(restarted.flush());

      List<VersionInfo> h = history(reader(), key);
      assertThat(h)
          .as("one version, not two")
          .extracting(VersionInfo::version)
          .containsExactly(signed);
      StoredValue read = reader().blocking().read(key);
      assertThat(read.value()).isEqualTo(value);
      assertThat(read.version()).as("the crashed client's own version").isEqualTo(signed);
      assertThat(restarted.blocking().read(key).version()).isEqualTo(signed);
      restarted.close();
    }
  }

  /** A crash before writeM (the data upload never finished): the next client writes it once. */
  @Test
  void aWriteThatNeverReachedWriteMIsWrittenOnceByTheNextClient() throws Exception {
    List<Switched> a = switched();
    for (Switched c : a) {
      c.dataPuts = new CompletableFuture<>(); // never
    }
    RafeStore crashed = client(a, journal(), ProtocolMode.PAPER);
    byte[] value = new byte[100_000];
    value[7] = 7;
    get(crashed.writeBack("k", value));
    crashed.close();
    RafeStore restarted = client(clouds, journal(), ProtocolMode.PAPER);
    assertThat(restarted.blocking().read("k").value())
        .as("read-your-writes after the restart, before the replay lands")
        .isEqualTo(value);
    get(restarted.flush());
    assertThat(history(reader(), "k")).hasSize(1);
    assertThat(reader().blocking().read("k").value()).isEqualTo(value);
  }

  /**
   * Acknowledged values are read back from the journal for their upload, not kept on the heap: a
   * value the disk changed after its acknowledgement is found by its checksum, and that write fails
   * alone with the corruption named (its onClouds, and a read of the key, which cannot answer an
   * older version instead); it never reaches a cloud, and the key's later writes go on.
   */
  @Test
  void aJournaledValueTheDiskChangedFailsAloneAndTheKeysLaterWritesGoOn() throws Exception {
    List<Switched> sw = switched();
    CompletableFuture<Void> release = holdMetadataPuts(sw);
    RafeStore s = client(sw, journal(), ProtocolMode.PAPER);
    JournaledWrite first = s.blocking().writeBack("k", utf8("first"));
    // Its round is in writeM (held), so the next write waits in the queue, its value on disk only.
    waitUntil(() -> sw.stream().anyMatch(c -> c.metadataPutCalls.get() > 0));
    JournaledWrite second = s.blocking().writeBack("k", utf8("second, changed on disk"));
    changeOnDisk(dir.resolve("journal"), utf8("second, changed on disk"));
    assertThatThrownBy(() -> s.blocking().read("k"))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT));
    JournaledWrite third = s.blocking().writeBack("k", utf8("third"));
    release.complete(null);
    WriteReceipt one = get(first.onClouds());
    assertThatThrownBy(() -> get(second.onClouds()))
        .cause()
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.getMessage()).contains("checksum");
            });
    WriteReceipt three = get(third.onClouds());
    // It left the queue when it failed: nothing is left to flush.
    get(s.flush());
    assertThat(history(reader(), "k"))
        .extracting(VersionInfo::version)
        .containsExactly(three.version(), one.version());
    assertThat(reader().blocking().read("k").utf8()).isEqualTo("third");
    assertThat(s.blocking().read("k").utf8()).isEqualTo("third");
  }

  /** Flips one bit of the only occurrence of {@code value} in the journal's segment files. */
  private static void changeOnDisk(Path journal, byte[] value) throws Exception {
    int found = 0;
    try (var files = Files.list(journal)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".rfj")).toList()) {
        byte[] all = Files.readAllBytes(f);
        for (int i = 0; i + value.length <= all.length; i++) {
          if (java.util.Arrays.equals(all, i, i + value.length, value, 0, value.length)) {
            all[i + 3] ^= 0x01;
            Files.write(f, all);
            found++;
            break;
          }
        }
      }
    }
    assertThat(found).as("segments holding the value").isEqualTo(1);
  }

  private static void waitUntil(java.util.function.BooleanSupplier done) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("condition not reached within 20 s");
      }
      Thread.sleep(5);
    }
  }
}
