package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudRole;
import io.rafestore.HistoryPage;
import io.rafestore.ProtocolMode;
import io.rafestore.QuorumException;
import io.rafestore.RafeStore;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.protocol.TestCloud.Behaviour;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A writeM that fails after its log reached fewer than n - f clouds leaves that log behind, and the
 * same client, writing again, must not sign a second, different log of the same sequence (nor a
 * second entry under the same version): readers that hear both could otherwise take the failed
 * write's log and lose the completed next write. The client remembers every log it signs, landed or
 * not, and builds its next log on it ({@code Context.ownView}).
 *
 * <p>Each case: alice writes v1; her writeM for X reaches p0 only (the other clouds refuse metadata
 * puts), so X fails; then p0 keeps X's log (it acknowledges Y's log without storing it) and alice's
 * readM does not hear p0; alice writes Y, which completes on n - f clouds. A reader that hears p0,
 * p1 and p2 must read Y as the latest version, find Y once in the history under a version no other
 * value has, and read it by that version.
 */
class FailedWriteMTest {
  static final int KEYS = 8;

  static List<Arguments> cases() {
    List<Arguments> out = new java.util.ArrayList<>();
    for (ProtocolMode mode : List.of(ProtocolMode.PAPER, ProtocolMode.FAST)) {
      for (boolean inline : new boolean[] {false, true}) {
        out.add(Arguments.of(mode, inline));
      }
    }
    return out;
  }

  /** Alice's view of the clouds: metadata puts refused by some, gets never answered by others. */
  static final class Gate {
    final Set<String> refuseMetadataPuts = new HashSet<>();
    final Set<String> unheard = new HashSet<>();
    final io.rafestore.Scheduler scheduler;

    Gate(io.rafestore.Scheduler scheduler) {
      this.scheduler = scheduler;
    }

    ForwardingCloud wrap(TestCloud c) {
      return new ForwardingCloud(c) {
        @Override
        public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
          if (key.value().startsWith("m/") && refuseMetadataPuts.contains(id())) {
            // Refused late (after p0, 20 ms away, stored the log), so the failed writeM's log
            // has landed somewhere when the write fails.
            CompletableFuture<Void> refused = new CompletableFuture<>();
            scheduler.schedule(
                java.time.Duration.ofMillis(500),
                () ->
                    refused.completeExceptionally(
                        new CloudException(
                            id(), CloudException.Kind.UNAVAILABLE, "refused for the test")));
            return refused;
          }
          return super.put(key, data);
        }

        @Override
        public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
          if (unheard.contains(id())) {
            return new CompletableFuture<>();
          }
          return super.get(key, range);
        }
      };
    }
  }

  @ParameterizedTest(name = "{0}, inline {1}")
  @MethodSource("cases")
  void aFailedWriteMNeverForksTheNextLog(ProtocolMode mode, boolean inline) throws Exception {
    Harness h = new Harness(1, 4).rtts(20, 60, 100, 140);
    Gate gate = new Gate(h.scheduler);
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .mode(mode)
            .executor(Runnable::run)
            .scheduler(h.scheduler)
            .closeDrivers(false)
            .inlineThreshold(inline ? 64 * 1024 : 0)
            .writer("alice", Harness.ALICE);
    for (TestCloud c : h.clouds) {
      b.cloud(gate.wrap(c), CloudRole.DATA_AND_METADATA, c.rtt());
    }
    try (RafeStore alice = b.build();
        RafeStore reader =
            h.build(
                mode,
                (i, c) -> CloudRole.DATA_AND_METADATA,
                "bob",
                Harness.BOB,
                List.of("alice"),
                List.of(Harness.ALICE))) {
      for (int k = 0; k < KEYS; k++) {
        String key = "thread/" + k;
        h.clouds.forEach(c -> c.behave(Behaviour.CORRECT));
        gate.refuseMetadataPuts.clear();
        gate.unheard.clear();
        h.run(alice.write(key, utf8("v1 of " + key)));

        // X: its log lands on p0 only.
        gate.refuseMetadataPuts.addAll(List.of("p1", "p2", "p3"));
        CompletableFuture<WriteReceipt> x = alice.write(key, utf8("X of " + key));
        assertThatThrownBy(() -> h.run(x))
            .isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(QuorumException.class);
        ObjectKey log = io.rafestore.internal.util.Names.metadataObject(key, "alice");
        assertThat(h.stores.get(0).get(log, Optional.empty()).join())
            .as("X's log on p0, v1's on p1")
            .isNotEqualTo(h.stores.get(1).get(log, Optional.empty()).join());

        // Y: p0 keeps X's log (acknowledges Y's without storing it), alice's readM skips p0.
        gate.refuseMetadataPuts.clear();
        gate.unheard.add("p0");
        h.clouds.get(0).behave(Behaviour.DROP_WRITES);
        byte[] y = utf8("Y of " + key);
        WriteReceipt ry = h.run(alice.write(key, y));
        gate.unheard.clear();

        // A reader hearing p0 (X's log), p1 and p2 (Y's).
        h.clouds.get(0).behave(Behaviour.CORRECT);
        h.clouds.get(3).behave(Behaviour.HANG);
        StoredValue latest = h.run(reader.read(key));
        assertThat(latest.utf8()).as("latest of %s", key).isEqualTo("Y of " + key);
        assertThat(latest.version()).isEqualTo(ry.version());
        HistoryPage page = h.run(reader.history(key, Optional.empty(), 10));
        Set<Version> seen = new HashSet<>();
        int ys = 0;
        for (VersionInfo v : page.versions()) {
          assertThat(seen.add(v.version())).as("version %s listed once", v.version()).isTrue();
          byte[] bytes = h.run(reader.read(key, v.version())).value();
          if (new String(bytes, StandardCharsets.UTF_8).equals("Y of " + key)) {
            ys++;
            assertThat(v.version()).isEqualTo(ry.version());
          }
        }
        assertThat(ys).as("Y in the history of %s", key).isEqualTo(1);
        h.clouds.get(3).behave(Behaviour.CORRECT);
      }
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
