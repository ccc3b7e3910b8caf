package io.rafestore.internal.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.JournalException;
import io.rafestore.JournalException.Reason;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal's files: what is acknowledged survives a reopen, done intents are not recovered, a
 * torn tail is cut off and anything else corrupt is reported, the bound makes intents wait or fail,
 * and a failing disk is reported at once.
 */
class JournalTest {
  @TempDir Path dir;

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static void await(CompletableFuture<?> f) throws Exception {
    f.get(10, TimeUnit.SECONDS);
  }

  @Test
  void acknowledgedIntentsAndCommitsSurviveAReopenInOrderAndDoneOnesDoNot() throws Exception {
    List<String> ids = new ArrayList<>();
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      for (int i = 0; i < 5; i++) {
        String id = Journal.newId();
        ids.add(id);
        await(j.intent(id, "k" + (i % 2), bytes("value " + i), 1000 + i, true));
      }
      await(j.commit(ids.get(1), bytes("signed log 1")));
      j.done(ids.get(0));
      j.done(ids.get(3));
      // done is written with the next frame: this commit's fsync covers it.
      await(j.commit(ids.get(4), bytes("signed log 4")));
    }
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      List<Journal.Recovered> r = j.recovered();
      assertThat(r)
          .extracting(Journal.Recovered::id)
          .containsExactly(ids.get(1), ids.get(2), ids.get(4));
      assertThat(r.get(0).key()).isEqualTo("k1");
      assertThat(text(j, r.get(0))).isEqualTo("value 1");
      assertThat(r.get(0).createdAtMillis()).isEqualTo(1001);
      assertThat(new String(r.get(0).commit(), StandardCharsets.UTF_8)).isEqualTo("signed log 1");
      assertThat(r.get(1).commit()).isNull();
      assertThat(j.pendingIntents()).isEqualTo(3);
    }
  }

  /**
   * A value handed over is given back from its segment (the journal keeps no copy once its frame is
   * written), checked against the checksum taken when it was handed over: a byte the disk changed
   * is reported as corruption, naming the file; the locations recovered on open are the same; once
   * the intent is done and its segment deleted, nothing stale is read from a channel left open.
   */
  @Test
  void aValueIsReadBackFromItsSegmentCheckedAgainstItsChecksumUntilItsSegmentIsDeleted()
      throws Exception {
    byte[] big = new byte[131_000];
    new java.util.Random(7).nextBytes(big);
    Journal.EncodedIntent a = Journal.encodeIntent(Journal.newId(), "k", big, 1);
    Journal.EncodedIntent b = Journal.encodeIntent(Journal.newId(), "k", bytes("second value"), 2);
    Journal.EncodedIntent c = Journal.encodeIntent(Journal.newId(), "j", bytes("third value"), 3);
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      assertThat(a.location()).as("not written yet").isNull();
      await(j.intent(a, true));
      await(j.intent(b, true));
      await(j.intent(c, true));
      // 128 KiB segments: b and c went to a second one.
      assertThat(b.location().segment()).isGreaterThan(a.location().segment());
      assertThat(j.read(a.location())).isEqualTo(big);
      assertThat(j.read(b.location())).isEqualTo(bytes("second value"));
      assertThat(j.read(c.location())).isEqualTo(bytes("third value"));
    }
    Journal j = Journal.open(dir, 1 << 20, 100);
    try {
      assertThat(j.recovered())
          .extracting(Journal.Recovered::value)
          .containsExactly(a.location(), b.location(), c.location());
      Path file = dir.resolve(Journal.segmentName(c.location().segment()));
      try (FileChannel ch =
          FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        ByteBuffer one = ByteBuffer.allocate(1);
        ch.read(one, c.location().offset() + 2);
        one.put(0, (byte) (one.get(0) ^ 0x20)).rewind();
        ch.write(one, c.location().offset() + 2);
      }
      assertThatThrownBy(() -> j.read(c.location()))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(Reason.CORRUPT);
                assertThat(e.getMessage()).contains(file.toString()).contains("checksum");
              });
      assertThat(j.read(b.location())).as("its neighbour").isEqualTo(bytes("second value"));
      // a is done: its segment is deleted with the next frame, and a read channel opened on it
      // before gives nothing stale.
      assertThat(j.read(a.location())).isEqualTo(big);
      j.done(a.id());
      await(j.commit(b.id(), bytes("signed log")));
      assertThat(dir.resolve(Journal.segmentName(a.location().segment()))).doesNotExist();
      assertThatThrownBy(() -> j.read(a.location()))
          .isInstanceOfSatisfying(
              JournalException.class, e -> assertThat(e.reason()).isEqualTo(Reason.IO));
    } finally {
      j.close();
    }
    assertThatThrownBy(() -> j.read(b.location()))
        .isInstanceOfSatisfying(
            JournalException.class, e -> assertThat(e.reason()).isEqualTo(Reason.CLOSED));
  }

  @Test
  void intentIdsAreDistinctThirtyTwoHexDigits() {
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (int i = 0; i < 200_000; i++) {
      String id = Journal.newId();
      assertThat(id).hasSize(32).matches("[0-9a-f]{32}");
      assertThat(seen.add(id)).as(id).isTrue();
    }
    // The counter's scrambling is a bijection: consecutive and far-apart inputs never meet.
    java.util.Set<Long> out = new java.util.HashSet<>();
    for (long z = -50_000; z < 50_000; z++) {
      assertThat(out.add(Journal.scramble(z))).isTrue();
      assertThat(out.add(Journal.scramble(z * 0x9E3779B97F4A7C15L + Long.MIN_VALUE / 3))).isTrue();
    }
  }

  @Test
  void aLeaderWritesAndForcesItsFrameItselfAndCompletesItsFutureOnItsOwnThread() throws Exception {
    String id = Journal.newId();
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      CompletableFuture<Void> f =
          j.intent(Journal.encodeIntent(id, "k", bytes("led"), 1), true, true);
      CompletableFuture<String> thread = new CompletableFuture<>();
      f.thenRun(() -> thread.complete(Thread.currentThread().getName()));
      long before = j.framesForced();
      j.lead(f);
      // Durable when lead returns, completed here: no hand-over to another thread.
      assertThat(f).isCompleted();
      assertThat(thread.getNow("not run")).isEqualTo(Thread.currentThread().getName());
      assertThat(j.framesForced()).isEqualTo(before + 1);
    }
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      assertThat(j.recovered()).extracting(Journal.Recovered::id).containsExactly(id);
      assertThat(j.read(j.recovered().get(0).value())).isEqualTo(bytes("led"));
    }
  }

  @Test
  void concurrentLeadersEachReturnWithTheirRecordDurableAndJournalOrderIsAdmissionOrder()
      throws Exception {
    int threads = 8;
    int each = 40;
    List<String> order = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    Object admission = new Object();
    try (Journal j = Journal.open(dir, 4 << 20, 10_000)) {
      List<Thread> ts = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int tn = t;
        Thread th =
            new Thread(
                () -> {
                  for (int i = 0; i < each; i++) {
                    String id = Journal.newId();
                    CompletableFuture<Void> f;
                    synchronized (admission) {
                      f =
                          j.intent(
                              Journal.encodeIntent(id, "k" + tn, bytes(tn + "/" + i), i),
                              true,
                              true);
                      order.add(id);
                    }
                    j.lead(f);
                    if (!f.isDone() || f.isCompletedExceptionally()) {
                      errors.add(new AssertionError(id + " not durable after lead: " + f));
                    }
                  }
                });
        ts.add(th);
        th.start();
      }
      for (Thread th : ts) {
        th.join(60_000);
        assertThat(th.isAlive()).isFalse();
      }
      assertThat(errors).isEmpty();
      assertThat(j.framesForced()).isLessThanOrEqualTo(threads * each);
    }
    try (Journal j = Journal.open(dir, 4 << 20, 10_000)) {
      assertThat(j.recovered()).extracting(Journal.Recovered::id).containsExactlyElementsOf(order);
    }
  }

  @Test
  void aRecordAFrameTookBeforeItsLeaderCameIsCompletedByTheAcknowledger() throws Exception {
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      String id = Journal.newId();
      CompletableFuture<Void> f =
          j.intent(Journal.encodeIntent(id, "k", bytes("early"), 1), true, true);
      CompletableFuture<String> thread = new CompletableFuture<>();
      f.thenRun(() -> thread.complete(Thread.currentThread().getName()));
      // A commit record wakes the writer thread, whose frame takes the queued intent with it.
      await(j.commit(id, bytes("commit")));
      await(f);
      assertThat(thread.get(10, TimeUnit.SECONDS)).startsWith("rafestore-journal-ack ");
      // Nothing left to lead: returns at once.
      j.lead(f);
    }
  }

  @Test
  void anInterruptedLeaderLeavesItsRecordToTheWriterThread() throws Exception {
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      CompletableFuture<Void> f =
          j.intent(Journal.encodeIntent(Journal.newId(), "k", bytes("x"), 1), true, true);
      Thread.currentThread().interrupt();
      try {
        j.lead(f);
      } finally {
        assertThat(Thread.interrupted()).isTrue();
      }
      // Written by the writer thread all the same (its backstop looks at the queue), and completed.
      await(f);
      assertThat(j.framesForced()).isEqualTo(1);
    }
  }

  /** Opens segment files that take at most {@code room} more bytes (a disk filling up). */
  private static Journal.Opener fullDisk(AtomicLong room) {
    return p ->
        new LimitedChannel(
            FileChannel.open(
                p,
                StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE,
                StandardOpenOption.READ),
            room);
  }

  @Test
  void aLeaderOnAFullDiskGetsTheErrorAndTheJournalStaysUsable() throws Exception {
    AtomicLong room = new AtomicLong(Long.MAX_VALUE);
    Journal.Opener full = fullDisk(room);
    try (Journal j = Journal.open(dir, 1 << 20, 100, full)) {
      room.set(100);
      CompletableFuture<Void> f =
          j.intent(Journal.encodeIntent(Journal.newId(), "k", new byte[1000], 1), true, true);
      j.lead(f);
      assertThat(f).isCompletedExceptionally();
      assertThatThrownBy(f::join)
          .cause()
          .isInstanceOfSatisfying(
              JournalException.class, e -> assertThat(e.reason()).isEqualTo(Reason.IO));
      room.set(Long.MAX_VALUE);
      CompletableFuture<Void> g =
          j.intent(Journal.encodeIntent(Journal.newId(), "k", bytes("after"), 2), true, true);
      j.lead(g);
      assertThat(g).isCompleted();
    }
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      assertThat(j.recovered()).extracting(r -> text(j, r)).containsExactly("after");
    }
  }

  @Test
  void callbacksRunOnTheAcknowledgerAndABlockedOneDoesNotHoldUpTheNextFrame() throws Exception {
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
      CompletableFuture<String> thread = new CompletableFuture<>();
      CompletableFuture<Void> first = j.intent(Journal.newId(), "k", bytes("one"), 1, true);
      CompletableFuture<Void> callback =
          first.thenRun(
              () -> {
                thread.complete(
                    Thread.currentThread().getName() + " " + Journal.onAcknowledgerThread());
                entered.countDown();
                try {
                  release.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(thread.get()).startsWith("rafestore-journal-ack ").endsWith(" true");
      // The first callback is still running: the next frame is written and forced all the same
      // (it was not, when the writer thread itself ran the callbacks).
      CompletableFuture<Void> second = j.intent(Journal.newId(), "k", bytes("two"), 2, true);
      for (int i = 0; i < 1000 && j.framesForced() < 2; i++) {
        Thread.sleep(10);
      }
      assertThat(j.framesForced()).isEqualTo(2);
      // Acknowledged in frame order: not before the first frame's callbacks have returned.
      assertThat(second).isNotDone();
      release.countDown();
      await(callback);
      await(second);
    }
    assertThat(Journal.onAcknowledgerThread()).isFalse();
  }

  @Test
  void aRoundsCommitsWriteTheSharedLogOnceAndEachIntentRecoversItsOwnPartAndTheLog()
      throws Exception {
    List<String> ids = new ArrayList<>();
    byte[] log = new byte[64 * 1024];
    new java.util.Random(7).nextBytes(log);
    long before;
    long after;
    try (Journal j = Journal.open(dir, 8 << 20, 100)) {
      for (int i = 0; i < 5; i++) {
        String id = Journal.newId();
        ids.add(id);
        await(j.intent(id, "k", bytes("value " + i), i, true));
      }
      before = j.diskBytes();
      // The round of intents 1 to 3 (their own parts: the names); intent 4 has a commit alone.
      await(j.commitAll(ids.subList(1, 4), List.of(bytes("n1"), bytes("n2"), bytes("n3")), log));
      after = j.diskBytes();
      await(j.commitAll(List.of(ids.get(4)), List.of(bytes("n4")), bytes("alone")));
      j.done(ids.get(2));
      await(j.commit(Journal.newId(), bytes("x")));
    }
    // Written once: a commit record per intent would add three copies of the log.
    assertThat(after - before).isLessThan(log.length + 1024L);
    try (Journal j = Journal.open(dir, 8 << 20, 100)) {
      List<Journal.Recovered> r = j.recovered();
      assertThat(r)
          .extracting(Journal.Recovered::id)
          .containsExactly(ids.get(0), ids.get(1), ids.get(3), ids.get(4));
      assertThat(r.get(0).commit()).isNull();
      for (int i : new int[] {1, 2}) {
        byte[] c = r.get(i).commit();
        String own = i == 1 ? "n1" : "n3";
        assertThat(java.util.Arrays.copyOfRange(c, 0, 2)).isEqualTo(bytes(own));
        assertThat(java.util.Arrays.copyOfRange(c, 2, c.length)).isEqualTo(log);
      }
      assertThat(new String(r.get(3).commit(), StandardCharsets.UTF_8)).isEqualTo("n4alone");
    }
  }

  @Test
  void segmentsWhoseIntentsAreAllDoneAreDeleted() throws Exception {
    try (Journal j = Journal.open(dir, 1 << 20, 1000)) {
      // 64 KiB segments: 40 values of 8 KiB fill several.
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        String id = Journal.newId();
        ids.add(id);
        await(j.intent(id, "k", new byte[8192], i, true));
      }
      assertThat(segments()).hasSizeGreaterThanOrEqualTo(3);
      for (String id : ids) {
        j.done(id);
      }
      await(j.commit(Journal.newId(), bytes("x")));
      assertThat(segments()).hasSize(1);
      assertThat(j.pendingIntents()).isZero();
    }
    try (Journal j = Journal.open(dir, 1 << 20, 1000)) {
      assertThat(j.recovered()).isEmpty();
    }
  }

  @Test
  void aDoneMarkGivenTwiceOrForAnUnknownIdCountsOnceAndKeepsItsNeighboursSegment()
      throws Exception {
    List<String> ids = new ArrayList<>();
    try (Journal j = Journal.open(dir, 1 << 20, 1000)) {
      for (int i = 0; i < 40; i++) {
        String id = Journal.newId();
        ids.add(id);
        await(j.intent(id, "k", new byte[8192], i, true));
      }
      // Every intent but the first is done, each marked twice: the first segment still holds the
      // first intent, so it (and every segment after it) stays.
      for (String id : ids.subList(1, ids.size())) {
        j.done(id);
        j.done(id);
      }
      j.done(Journal.newId());
      await(j.commit(Journal.newId(), bytes("x")));
      assertThat(j.pendingIntents()).isEqualTo(1);
      assertThat(segments()).hasSizeGreaterThanOrEqualTo(2);
    }
    try (Journal j = Journal.open(dir, 1 << 20, 1000)) {
      assertThat(j.recovered()).extracting(Journal.Recovered::id).containsExactly(ids.get(0));
      assertThat(j.read(j.recovered().get(0).value())).hasSize(8192);
      j.done(ids.get(0));
      await(j.commit(Journal.newId(), bytes("y")));
      assertThat(j.pendingIntents()).isZero();
      assertThat(segments()).hasSize(1);
    }
  }

  private List<Path> segments() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".rfj")).sorted().toList();
    }
  }

  /** Writes two acknowledged intents, then returns the newest segment file. */
  private List<String> twoIntents() throws Exception {
    List<String> ids = List.of(Journal.newId(), Journal.newId());
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      await(j.intent(ids.get(0), "a", bytes("first"), 1, true));
      await(j.intent(ids.get(1), "b", bytes("second"), 2, true));
    }
    return ids;
  }

  /** Where a segment's frames end (its zeros written ahead follow). */
  static long frameEnd(Path segment) throws IOException {
    byte[] all = Files.readAllBytes(segment);
    int pos = Journal.HEADER_BYTES;
    while (pos + Journal.FRAME_OVERHEAD <= all.length
        && new String(all, pos, 4, StandardCharsets.US_ASCII).equals("RFWB")) {
      pos += Journal.FRAME_OVERHEAD + ByteBuffer.wrap(all, pos + 4, 4).getInt();
    }
    return pos;
  }

  /** Writes {@code bytes} at {@code at} of {@code file} (over its zeros). */
  static void writeAt(Path file, long at, byte[] bytes) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.wrap(bytes);
      while (b.hasRemaining()) {
        ch.write(b, at + b.position());
      }
    }
  }

  private Path newestWithFrames() throws IOException {
    Path newest = null;
    for (Path p : segments()) {
      if (frameEnd(p) > Journal.HEADER_BYTES) {
        newest = p;
      }
    }
    return newest;
  }

  @Test
  void aTornTailIsCutOffAndTheAcknowledgedRecordsAreKept() throws Exception {
    List<String> ids = twoIntents();
    Path seg = newestWithFrames();
    // Delete the empty segment the reopen started, so the torn file is the newest, as after a
    // crash during a write to it.
    for (Path p : segments()) {
      if (!p.equals(seg)) {
        Files.delete(p);
      }
    }
    long good = frameEnd(seg);
    assertThat(Files.size(seg)).as("zeros written ahead").isGreaterThan(good);
    // A crash tore the next frame: its header and part of its body reached the disk.
    byte[] torn = ByteBuffer.allocate(30).put(bytes("RFWB")).putInt(200).putInt(12345).array();
    writeAt(seg, good, torn);
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      assertThat(j.recovered()).extracting(Journal.Recovered::id).containsExactlyElementsOf(ids);
    }
    assertThat(Files.size(seg)).isEqualTo(good);
  }

  @Test
  void aTornFrameInTheMiddleOfTheNewestSegmentIsCut() throws Exception {
    List<String> ids = twoIntents();
    Path seg = newestWithFrames();
    for (Path p : segments()) {
      if (!p.equals(seg)) {
        Files.delete(p);
      }
    }
    // Flip a byte of the last frame (the second intent): the tail, never acknowledged as far as the
    // file can tell, so it is cut and the first intent stays.
    byte[] all = Files.readAllBytes(seg);
    all[(int) frameEnd(seg) - 3] ^= 1;
    Files.write(seg, all);
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      assertThat(j.recovered()).extracting(Journal.Recovered::id).containsExactly(ids.get(0));
    }
  }

  @Test
  void thePreallocatedZerosAfterTheFramesAreTheCleanEndOfEverySegment() throws Exception {
    List<String> ids = new ArrayList<>();
    // 64 KiB segments: the third 30 KiB value starts a second one, so the first, zeros after its
    // frames, is an older segment on reopen, where a bad frame would be corruption.
    try (Journal j = Journal.open(dir, 512 * 1024, 100)) {
      for (int i = 0; i < 3; i++) {
        String id = Journal.newId();
        ids.add(id);
        await(j.intent(id, "k", new byte[30 * 1024], i, true));
      }
    }
    List<Path> files = segments();
    assertThat(files).hasSizeGreaterThanOrEqualTo(2);
    Path first = files.get(0);
    byte[] all = Files.readAllBytes(first);
    assertThat(all[4]).as("format byte").isEqualTo(Journal.FORMAT);
    assertThat(frameEnd(first)).isGreaterThan(2 * 30 * 1024);
    assertThat(all.length).as("zeros written ahead").isGreaterThan((int) frameEnd(first));
    try (Journal j = Journal.open(dir, 512 * 1024, 100)) {
      assertThat(j.recovered()).extracting(Journal.Recovered::id).containsExactlyElementsOf(ids);
    }
  }

  @Test
  void anIdleWriterTopsUpTheZerosBeforeAFrameNeedsThemAndTheyReadAsTheCleanEnd() throws Exception {
    List<String> ids = new ArrayList<>();
    // 8 MiB segments: the first file starts with 1 MiB of zeros after its header. Ten 64 KiB
    // values,
    // each acknowledged before the next (the writer idle between them), leave fewer than 512 KiB
    // of zeros: the idle writer writes the next megabyte before any frame reaches the end.
    Path seg;
    try (Journal j = Journal.open(dir, 64L * 1024 * 1024, 100)) {
      seg = segments().get(segments().size() - 1);
      long first = Files.size(seg);
      assertThat(first).isEqualTo(Journal.HEADER_BYTES + Journal.PREALLOCATE_BYTES);
      for (int i = 0; i < 10; i++) {
        String id = Journal.newId();
        ids.add(id);
        await(j.intent(id, "k", new byte[64 * 1024], i, true));
      }
      assertThat(frameEnd(seg))
          .isLessThan(first)
          .isGreaterThan(first - Journal.PREALLOCATE_BYTES / 2);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (Files.size(seg) == first && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(Files.size(seg))
          .as("zeros topped up while idle")
          .isEqualTo(first + Journal.PREALLOCATE_BYTES);
      // The frames written after it go into those zeros, past the file's first end.
      for (int i = 10; i < 17; i++) {
        String id = Journal.newId();
        ids.add(id);
        await(j.intent(id, "k", new byte[64 * 1024], i, true));
      }
      assertThat(frameEnd(seg)).isGreaterThan(first);
      assertThat(Files.size(seg)).isEqualTo(first + Journal.PREALLOCATE_BYTES);
    }
    try (Journal j = Journal.open(dir, 64L * 1024 * 1024, 100)) {
      assertThat(j.recovered()).extracting(Journal.Recovered::id).containsExactlyElementsOf(ids);
    }
  }

  @Test
  void aTornFrameBeforeTheZerosIsCutAndOneWithBytesPastItsStartIsToo() throws Exception {
    List<String> ids = twoIntents();
    Path seg = newestWithFrames();
    for (Path p : segments()) {
      if (!p.equals(seg)) {
        Files.delete(p);
      }
    }
    long good = frameEnd(seg);
    // A frame's later page reached the disk, its first bytes (the magic) did not: not all zeros,
    // not a frame, nothing valid after it: the torn tail.
    writeAt(seg, good + 100, bytes("part of a body"));
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      assertThat(j.recovered()).extracting(Journal.Recovered::id).containsExactlyElementsOf(ids);
    }
    assertThat(Files.size(seg)).isEqualTo(good);
  }

  @Test
  void aSegmentOfFormatOneIsStillRead() throws Exception {
    // Written by hand as format 1 wrote it: the header, frames, and the file ends there.
    String a = Journal.newId();
    String b = Journal.newId();
    ByteBuffer h = ByteBuffer.allocate(Journal.HEADER_BYTES);
    h.put(bytes("RFWJ")).put((byte) 1).putLong(7);
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(h.array(), 0, 13);
    h.putInt((int) crc.getValue());
    java.io.ByteArrayOutputStream file = new java.io.ByteArrayOutputStream();
    file.write(h.array());
    file.write(frame(intentRecord(a, "k", "one", 1), intentRecord(b, "k", "two", 2)));
    byte[] done = ByteBuffer.allocate(17).put(Journal.DONE).put(hex(a)).array();
    file.write(frame(done));
    Files.createDirectories(dir);
    Path old = dir.resolve(Journal.segmentName(7));
    Files.write(old, file.toByteArray());
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      assertThat(j.recovered()).extracting(Journal.Recovered::id).containsExactly(b);
      assertThat(text(j, j.recovered().get(0))).isEqualTo("two");
    }
    // Now older than the segment that reopen started, and still read (not corrupt).
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      assertThat(j.recovered()).extracting(Journal.Recovered::id).containsExactly(b);
    }
  }

  /**
   * Segment names are part of the on-disk format (recovery finds a journal's segments by them), so
   * the hand-written formatter must give exactly the names {@code segment-%016d.rfj} gave.
   */
  @Test
  void segmentNamesKeepTheirOnDiskForm() {
    for (long n :
        new long[] {0, 1, 7, 9, 10, 99, 12_345, 999_999_999_999_999L, 1_000_000_000_000_000L}) {
      assertThat(Journal.segmentName(n)).isEqualTo(String.format("segment-%016d.rfj", n));
    }
    assertThat(Journal.segmentName(42)).isEqualTo("segment-0000000000000042.rfj").hasSize(28);
    assertThatThrownBy(() -> Journal.segmentName(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
  }

  private static byte[] hex(String id) {
    return java.util.HexFormat.of().parseHex(id);
  }

  private static byte[] intentRecord(String id, String key, String value, long created) {
    byte[] k = bytes(key);
    byte[] v = bytes(value);
    return ByteBuffer.allocate(1 + 16 + 8 + 2 + k.length + 4 + v.length)
        .put(Journal.INTENT)
        .put(hex(id))
        .putLong(created)
        .putShort((short) k.length)
        .put(k)
        .putInt(v.length)
        .put(v)
        .array();
  }

  private static byte[] frame(byte[]... records) {
    int body = 0;
    for (byte[] r : records) {
      body += r.length;
    }
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    for (byte[] r : records) {
      crc.update(r);
    }
    ByteBuffer f = ByteBuffer.allocate(Journal.FRAME_OVERHEAD + body);
    f.put(bytes("RFWB")).putInt(body).putInt((int) crc.getValue());
    for (byte[] r : records) {
      f.put(r);
    }
    return f.array();
  }

  @Test
  void aBadFrameFollowedByAGoodOneIsCorruptionNotATornTail() throws Exception {
    twoIntents();
    Path seg = newestWithFrames();
    byte[] all = Files.readAllBytes(seg);
    // The first frame's body: flipping one of its bytes leaves the second frame valid after it.
    all[Journal.HEADER_BYTES + Journal.FRAME_OVERHEAD + 3] ^= 1;
    Files.write(seg, all);
    assertThatThrownBy(() -> Journal.open(dir, 1 << 20, 100))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.CORRUPT);
              assertThat(e.path()).isEqualTo(seg);
              assertThat(e.getMessage()).contains(seg.toString()).contains("offset 17");
            });
  }

  @Test
  void aBadFrameInAnOlderSegmentIsCorruption() throws Exception {
    twoIntents();
    Path seg = newestWithFrames();
    // A reopen starts a newer (empty) segment, so seg is not the newest now.
    Journal.open(dir, 1 << 20, 100).close();
    assertThat(segments().get(segments().size() - 1)).isNotEqualTo(seg);
    byte[] all = Files.readAllBytes(seg);
    all[(int) frameEnd(seg) - 3] ^= 1;
    Files.write(seg, all);
    assertThatThrownBy(() -> Journal.open(dir, 1 << 20, 100))
        .isInstanceOfSatisfying(
            JournalException.class, e -> assertThat(e.reason()).isEqualTo(Reason.CORRUPT));
  }

  @Test
  void aFullJournalFailsAtOnceOrMakesTheIntentWaitForSpace() throws Exception {
    try (Journal j = Journal.open(dir, 1 << 20, 2)) {
      String a = Journal.newId();
      await(j.intent(a, "k", bytes("a"), 1, false));
      await(j.intent(Journal.newId(), "k", bytes("b"), 2, false));
      CompletableFuture<Void> refused = j.intent(Journal.newId(), "k", bytes("c"), 3, false);
      assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(Reason.FULL);
                assertThat(e.getMessage()).contains("maxEntries 2").contains(dir.toString());
              });
      CompletableFuture<Void> waits = j.intent(Journal.newId(), "k", bytes("d"), 4, true);
      Thread.sleep(200);
      assertThat(waits).isNotDone();
      j.done(a);
      await(waits);
    }
  }

  @Test
  void theByteBoundCountsTheFilesAndIsFreedAsSegmentsAreDone() throws Exception {
    try (Journal j = Journal.open(dir, 256 * 1024, 1000)) {
      List<String> ids = new ArrayList<>();
      List<CompletableFuture<Void>> acks = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        String id = Journal.newId();
        ids.add(id);
        acks.add(j.intent(id, "k", new byte[30 * 1024], i, true));
      }
      Thread.sleep(300);
      long acked = acks.stream().filter(f -> f.isDone()).count();
      assertThat(acked).isBetween(6L, 8L);
      assertThat(j.diskBytes()).isLessThanOrEqualTo(256 * 1024);
      for (String id : ids) {
        j.done(id);
      }
      for (CompletableFuture<Void> f : acks) {
        await(f);
      }
      assertThat(j.diskBytes()).isLessThanOrEqualTo(256 * 1024);
    }
  }

  @Test
  void aValueLargerThanTheBoundIsRefusedAtOnce() throws Exception {
    try (Journal j = Journal.open(dir, 64 * 1024, 10)) {
      CompletableFuture<Void> f = j.intent(Journal.newId(), "k", new byte[70 * 1024], 1, true);
      assertThat(f).isCompletedExceptionally();
      assertThatThrownBy(f::join)
          .cause()
          .isInstanceOfSatisfying(
              JournalException.class, e -> assertThat(e.reason()).isEqualTo(Reason.FULL));
    }
  }

  @Test
  void oneClientAtATimeMayOpenAJournal() throws Exception {
    try (Journal j = Journal.open(dir, 1 << 20, 10)) {
      assertThat(j.recovered()).isEmpty();
      assertThatThrownBy(() -> Journal.open(dir, 1 << 20, 10))
          .isInstanceOfSatisfying(
              JournalException.class, e -> assertThat(e.reason()).isEqualTo(Reason.IN_USE));
    }
    Journal.open(dir, 1 << 20, 10).close();
  }

  @Test
  void aDirectoryThatCannotBeCreatedIsReportedWithItsPath() throws Exception {
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    Path under = file.resolve("journal");
    assertThatThrownBy(() -> Journal.open(under, 1 << 20, 10))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.IO);
              assertThat(e.getMessage()).contains(under.toString());
            });
  }

  /**
   * Checks a {@link JournalException}: reason IO, its message naming every one of {@code parts}.
   */
  private static java.util.function.Consumer<JournalException> ioError(String... parts) {
    return e -> {
      assertThat(e.reason()).isEqualTo(Reason.IO);
      for (String part : parts) {
        assertThat(e.getMessage()).contains(part);
      }
    };
  }

  @Test
  void aReadOnlyDirectoryIsReportedWhenOpened() throws Exception {
    Path ro = Files.createDirectory(dir.resolve("ro"));
    ro.toFile().setWritable(false, false);
    try {
      org.junit.jupiter.api.Assumptions.assumeFalse(
          Files.isWritable(ro), "running as root: a read-only mode does not stop writes");
      assertThatThrownBy(() -> Journal.open(ro, 1 << 20, 10))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(Reason.IO);
                assertThat(e.getMessage()).contains(ro.toString()).contains("read-only");
              });
    } finally {
      ro.toFile().setWritable(true, false);
    }
  }

  @Test
  void aReadOnlyFileSystemIsReportedWhenOpenedEvenToRoot() throws Exception {
    // The permission test above is skipped when the tests run as root (as CI does), which a
    // read-only mount stops all the same: the kernel's EROFS on the first segment file.
    Journal.Opener readOnly =
        p -> {
          throw new java.nio.file.FileSystemException(p.toString(), null, "Read-only file system");
        };
    assertThatThrownBy(() -> Journal.open(dir, 1 << 20, 10, readOnly))
        .isInstanceOfSatisfying(
            JournalException.class,
            ioError(dir.toString(), "read-only or full disk", "Read-only file system"));
    // The refused open let go of the directory's lock: a client can open it once it is writable.
    try (Journal j = Journal.open(dir, 1 << 20, 10)) {
      assertThat(j.recovered()).isEmpty();
    }
  }

  @Test
  void aDiskThatTurnsReadOnlyFailsTheNextWriteAtOnceAndKeepsWhatWasAcknowledged() throws Exception {
    AtomicLong room = new AtomicLong(Long.MAX_VALUE);
    Journal.Opener turnsReadOnly =
        p ->
            new LimitedChannel(
                FileChannel.open(
                    p,
                    StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE,
                    StandardOpenOption.READ),
                room,
                p.toString());
    String kept = Journal.newId();
    try (Journal j = Journal.open(dir, 1 << 20, 100, turnsReadOnly)) {
      await(j.intent(kept, "k", bytes("before"), 1, true));
      room.set(0); // remounted read-only, as ext4 does after an I/O error with errors=remount-ro
      CompletableFuture<Void> f = j.intent(Journal.newId(), "k", bytes("refused"), 2, true);
      assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOfSatisfying(
              JournalException.class,
              ioError(dir.toString(), "read-only", "Read-only file system"));
      // Nothing can be taken back on a read-only disk, so the journal stops: every later write
      // fails at once with the same error instead of waiting.
      CompletableFuture<Void> later = j.intent(Journal.newId(), "k", bytes("later"), 3, true);
      assertThatThrownBy(() -> later.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(JournalException.class)
          .hasMessageContaining("Read-only file system");
    }
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      // The acknowledged record is all there is: the refused one never reached the file.
      assertThat(j.recovered()).hasSize(1);
      assertThat(j.recovered().get(0).id()).isEqualTo(kept);
    }
  }

  @Test
  void aFullDiskFailsTheWriteAtOnceAndLeavesTheJournalUsable() throws Exception {
    AtomicLong room = new AtomicLong(Long.MAX_VALUE);
    Journal.Opener full = fullDisk(room);
    String kept = Journal.newId();
    try (Journal j = Journal.open(dir, 1 << 20, 100, full)) {
      await(j.intent(kept, "k", bytes("fits"), 1, true));
      room.set(100);
      CompletableFuture<Void> f = j.intent(Journal.newId(), "k", new byte[1000], 2, true);
      assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOfSatisfying(JournalException.class, ioError(dir.toString(), "No space left"));
      room.set(Long.MAX_VALUE);
      await(j.intent(Journal.newId(), "k", bytes("after"), 3, true));
    }
    try (Journal j = Journal.open(dir, 1 << 20, 100)) {
      // The failed frame was taken back: the file reads cleanly, without the refused value.
      assertThat(j.recovered()).hasSize(2);
      assertThat(j.recovered().get(0).id()).isEqualTo(kept);
    }
  }

  /** A file channel on a disk with {@code room} bytes left: a write past it fails part-way. */
  static final class LimitedChannel extends FileChannel {
    private final FileChannel d;
    private final AtomicLong room;

    /** Null: a full disk (a write past the room lands in part); else a read-only one. */
    private final String readOnly;

    LimitedChannel(FileChannel d, AtomicLong room) {
      this(d, room, null);
    }

    LimitedChannel(FileChannel d, AtomicLong room, String readOnly) {
      this.d = d;
      this.room = room;
      this.readOnly = readOnly;
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      long left = room.get();
      if (readOnly != null && src.remaining() > left) {
        // EROFS, as after a remount read-only: nothing of the write lands.
        throw new java.nio.file.FileSystemException(readOnly, null, "Read-only file system");
      }
      if (src.remaining() > left) {
        ByteBuffer part = src.duplicate();
        part.limit(part.position() + (int) Math.max(0, left / 2));
        int n = d.write(part, position);
        src.position(src.position() + n);
        throw new IOException("No space left on device");
      }
      room.addAndGet(-src.remaining());
      return d.write(src, position);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return d.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
      return d.read(dsts, offset, length);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      return d.write(src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      return d.write(srcs, offset, length);
    }

    @Override
    public long position() throws IOException {
      return d.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      d.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return d.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      if (readOnly != null && room.get() == 0) {
        throw new java.nio.file.FileSystemException(readOnly, null, "Read-only file system");
      }
      d.truncate(size);
      return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      d.force(metaData);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target)
        throws IOException {
      return d.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count)
        throws IOException {
      return d.transferFrom(src, position, count);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return d.read(dst, position);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      return d.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
      return d.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      return d.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
      d.close();
    }
  }

  /** A recovered intent's value, read back from the journal, as text. */
  private static String text(Journal j, Journal.Recovered r) {
    try {
      return new String(j.read(r.value()), StandardCharsets.UTF_8);
    } catch (JournalException e) {
      throw new AssertionError(e);
    }
  }
}
