package io.rafestore.internal.protocol.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.Version;
import io.rafestore.internal.codec.Sha256;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One entry id, two representations (an inline value and its packed form): how logs are rewritten
 * with packed entries, how readers merge logs that disagree on the form, and which packs the view
 * keeps for garbage collection.
 */
class InlineMergeTest {
  static final long A = 11;
  static final long B = 22;

  static LogEntry inline(long ts, long incarnation) {
    byte[] v = ("value " + ts).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return LogEntry.inline(
            ts, ts, "d/k/alice-" + ts, v.length, Sha256.hash(v), v, List.of(), List.of())
        .withIncarnation(incarnation);
  }

  static LogEntry packed(LogEntry inline, String pack) {
    return inline.packed(new LogEntry.Pack(pack, 100, new byte[32], 10), List.of("p0", "p1"));
  }

  @Test
  void replaceSwapsOnlyAnEntryForItsOwnPackedForm() {
    LogEntry one = inline(1, A);
    LogEntry two = inline(2, A);
    MetadataLog log = new MetadataLog("k", "alice", 5, A, List.of(one, two));
    LogEntry p1 = packed(one, "d/k/alice-pack");
    MetadataLog replaced =
        Logs.replace(log, Map.of(one.id(), p1, two.id(), packed(two, "d/k/alice-pack")));
    assertThat(replaced.entries()).containsExactly(p1, packed(two, "d/k/alice-pack"));
    assertThat(replaced.sequence()).isEqualTo(5);
    LogEntry other =
        LogEntry.inline(
                2,
                2,
                "d/k/alice-other",
                1,
                Sha256.hash(new byte[1]),
                new byte[1],
                List.of(),
                List.of())
            .withIncarnation(A);
    // The packed form of another value under the same id is not a replacement.
    MetadataLog unchanged = Logs.replace(log, Map.of(two.id(), packed(other, "d/k/alice-pack")));
    assertThat(unchanged).isSameAs(log);
    assertThat(Logs.inlineBytes(log)).isEqualTo(one.inline().length + two.inline().length);
    assertThat(Logs.inlineBytes(replaced)).isZero();
    MetadataLog next = Logs.rewrite(replaced, B);
    assertThat(next.sequence()).isEqualTo(6);
    assertThat(next.incarnation()).isEqualTo(B);
    assertThat(next.entries()).isEqualTo(replaced.entries());
  }

  @Test
  void acrossIncarnationsTheInlineFormIsTakenAndThePackedOneShadowedWhicheverLogIsNewer() {
    LogEntry one = inline(1, A);
    // A's rewrite packed entry 1 (sequence 3); B carried the inline form forward (sequence 4).
    MetadataLog aPacked = new MetadataLog("k", "alice", 3, A, List.of(packed(one, "d/k/alice-pa")));
    MetadataLog bInline = new MetadataLog("k", "alice", 4, B, List.of(one, inline(2, B)));
    for (List<MetadataLog> order : List.of(List.of(aPacked, bInline), List.of(bInline, aPacked))) {
      LogMerge.Merged m = LogMerge.mergeWithShadowed(order);
      assertThat(m.log().entries().get(0)).isEqualTo(one);
      assertThat(m.shadowed()).containsExactly(packed(one, "d/k/alice-pa"));
      View v =
          new View(
              "k",
              Map.of("alice", m.log()),
              List.of(),
              false,
              Map.of(),
              Map.of("alice", m.shadowed()));
      assertThat(v.visible).hasSize(2);
      // The pack a shadowed live entry names is kept by collection and orphan collection.
      assertThat(v.packsInUse).containsExactly("d/k/alice-pa");
      assertThat(v.packsReferenced).containsExactly("d/k/alice-pa");
      assertThat(v.packsInUseAbove(new Version(1, "alice", A))).isEmpty();
    }
    // Two packed forms: the newer log's is taken, the other shadowed (and kept while live).
    MetadataLog bPacked =
        new MetadataLog("k", "alice", 5, B, List.of(packed(one, "d/k/alice-pb"), inline(2, B)));
    LogEntry.Id id = one.id();
    LogMerge.Merged m = LogMerge.mergeWithShadowed(List.of(aPacked, bPacked));
    assertThat(m.log().entries().get(0).pack().object()).isEqualTo("d/k/alice-pb");
    assertThat(m.shadowed()).extracting(LogEntry::id).containsExactly(id);
    View v =
        new View(
            "k",
            Map.of("alice", m.log()),
            List.of(),
            false,
            Map.of(),
            Map.of("alice", m.shadowed()));
    assertThat(v.packsInUse).containsExactlyInAnyOrder("d/k/alice-pa", "d/k/alice-pb");
  }

  @Test
  void withinOneIncarnationTheNewestLogWinsAndNothingIsShadowed() {
    LogEntry one = inline(1, A);
    MetadataLog before = new MetadataLog("k", "alice", 3, A, List.of(one));
    MetadataLog after = new MetadataLog("k", "alice", 4, A, List.of(packed(one, "d/k/alice-p")));
    LogMerge.Merged m = LogMerge.mergeWithShadowed(List.of(before, after));
    assertThat(m.log()).isEqualTo(after);
    assertThat(m.shadowed()).isEmpty();
  }
}
