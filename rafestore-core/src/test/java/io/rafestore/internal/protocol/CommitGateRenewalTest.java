package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudRole;
import io.rafestore.HistoryPage;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreException;
import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.protocol.context.CommitGate;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.util.Names;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A commit gate that fails (the write-back journal's fsync of a commit record failed): the writes
 * of that round fail and nothing is sent, and the client <em>renews its incarnation</em> before it
 * signs anything else ({@code quorum.Commit.throughGate}). The failed commit record may still have
 * reached the disk, so the next client with that journal may redo the failed log's entry; the
 * renewal is what keeps that entry and the next round's entries apart (section 4: one incarnation
 * never signs two entries of one version nor two logs of one sequence).
 *
 * <p>The case: v1 written; the gate fails the next log (the round of "w0"); the next round ("w1",
 * and "w2" with it under group commit) passes. Its log is built on v1's (the failed log was never
 * remembered), so "w1" takes the very timestamp "w0" was signed with; then the failed log is put on
 * p0 as a successor's redo would leave it. A reader that hears p0 and two others must find four
 * versions, each with its own bytes. Without the renewal "w0" and "w1" would be one version, in two
 * logs of one sequence and incarnation, and this fails.
 */
class CommitGateRenewalTest {
  static final String KEY = "thread/7";

  /** A gate that fails the next log it is asked about, keeping that log's signed bytes. */
  static final class FailingOnce implements CommitGate {
    volatile boolean armed;
    volatile byte[] refusedBytes;
    volatile MetadataLog refused;

    @Override
    public synchronized CompletableFuture<Void> beforePut(
        String key, MetadataLog next, List<LogEntry> entries, byte[] bytes) {
      if (!armed) {
        return CompletableFuture.completedFuture(null);
      }
      armed = false;
      refused = next;
      refusedBytes = bytes.clone();
      return CompletableFuture.failedFuture(new RafeStoreException("fsync failed (test)"));
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void aFailedGateRenewsTheIncarnationSoTheNextRoundNeverReusesAVersion(ProtocolMode mode)
      throws Exception {
    for (boolean group : new boolean[] {true, false}) {
      String context = mode + (group ? ", group commit" : ", one round per write");
      Harness h = new Harness(1, 4).rtts(Harness.table1());
      try (RafeStore alice = h.inline(mode).groupCommit(group).build();
          RafeStore reader =
              h.build(
                  mode,
                  (i, c) -> CloudRole.DATA_AND_METADATA,
                  "bob",
                  Harness.BOB,
                  List.of("alice"),
                  List.of(Harness.ALICE))) {
        Context ctx = ((Client) alice).contextForTests();
        FailingOnce gate = new FailingOnce();
        ctx.commitGate(gate);
        WriteReceipt v1 = h.run(alice.write(KEY, utf8("v1")));
        long before = ctx.incarnation();
        h.scheduler.advance(Duration.ofSeconds(2));

        gate.armed = true;
        List<CompletableFuture<WriteReceipt>> writes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          writes.add(alice.write(KEY, utf8("w" + i)));
        }
        CompletableFuture<WriteReceipt> w0 = writes.get(0);
        assertThatThrownBy(() -> h.run(w0))
            .as(context)
            .isInstanceOf(ExecutionException.class)
            .hasRootCauseMessage("fsync failed (test)");
        WriteReceipt w1 = h.run(writes.get(1));
        WriteReceipt w2 = h.run(writes.get(2));
        h.scheduler.advance(Duration.ofSeconds(3));

        // The refused log carried "w0" only, signed by the old incarnation, on no cloud.
        MetadataLog refused = gate.refused;
        assertThat(refused).as(context).isNotNull();
        LogEntry refusedEntry = refused.entries().get(refused.entries().size() - 1);
        Version w0Version = refusedEntry.version("alice");
        assertThat(w0Version.incarnation()).as(context).isEqualTo(before);
        assertThat(ctx.incarnation()).as("renewed, " + context).isNotEqualTo(before);
        assertThat(w1.version().incarnation()).as(context).isEqualTo(ctx.incarnation());
        assertThat(w1.version().timestamp())
            .as(
                "the next round takes w0's timestamp again (w0's log was not remembered), %s",
                context)
            .isEqualTo(w0Version.timestamp());
        assertThat(w2.version()).isGreaterThan(w1.version());
        assertThat(h.run(reader.history(KEY, Optional.empty(), 100)).versions())
            .as("nothing of the refused log reached a cloud, %s", context)
            .extracting(VersionInfo::version)
            .containsExactly(w2.version(), w1.version(), v1.version());

        // A successor redoes the refused log's entry (its commit record reached the disk after
        // all): here, the refused log itself lands on p0, beside the next round's log elsewhere.
        h.run(h.stores.get(0).put(Names.metadataObject(KEY, "alice"), gate.refusedBytes));
        HistoryPage page = h.run(reader.history(KEY, Optional.empty(), 100));
        Map<Version, String> values = new HashMap<>();
        for (VersionInfo v : page.versions()) {
          String value = h.run(reader.read(KEY, v.version())).utf8();
          assertThat(values.put(v.version(), value)).as("%s listed once, %s", v, context).isNull();
        }
        assertThat(values)
            .as("every write under a version of its own, %s", context)
            .containsOnly(
                Map.entry(v1.version(), "v1"),
                Map.entry(w0Version, "w0"),
                Map.entry(w1.version(), "w1"),
                Map.entry(w2.version(), "w2"));
      }
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
