package io.rafestore.internal.protocol.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudFault;
import io.rafestore.SigningKeys;
import io.rafestore.internal.codec.GatedSignatures;
import io.rafestore.internal.codec.Signatures;
import java.security.KeyPair;
import java.security.Security;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One signature for the logs that wait for the signer: their paths, forgeries, both signers. Public
 * for {@link #batchSignatureAt}.
 */
public class BatchSignerTest {
  private static final int MAX = 1 << 20;
  private final ExecutorService executor = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  /** A log of its own key: fresh bytes per test, so no verified-log cache answers for them. */
  static MetadataLog log(String key, int entries) {
    List<LogEntry> list = new ArrayList<>();
    for (int i = 1; i <= entries; i++) {
      byte[] sha = new byte[32];
      sha[0] = (byte) i;
      sha[1] = (byte) key.hashCode();
      list.add(
          LogEntry.replica(i, 1000L * i, "d/" + key + "/alice-" + i, 10L * i, sha, List.of("p0")));
    }
    return new MetadataLog(key, "alice", entries, 0, list);
  }

  /**
   * Where a batch-signed log's trailer starts (its algorithm byte), or -1 if it was signed alone:
   * read from the end, for tests that look at stored logs (BatchSigningTest).
   */
  public static int batchSignatureAt(byte[] bytes) {
    for (int steps = 1; steps <= MetadataCodec.MAX_PATH; steps++) {
      int at = bytes.length - MetadataCodec.pathBytes(steps) - 66;
      if (at > 0
          && bytes[at] == MetadataCodec.SIG_ED25519_BATCH
          && bytes[at + 1] == 64
          && (bytes[at + 66] & 0xFF) == steps) {
        return at;
      }
    }
    return -1;
  }

  /** The signature algorithm of a signed log: 2 (alone) or 3 (in a batch), from its trailer. */
  static int algorithm(byte[] bytes) {
    return batchSignatureAt(bytes) >= 0
        ? MetadataCodec.SIG_ED25519_BATCH
        : bytes[bytes.length - 66];
  }

  /** A signer whose first signature, of a log of {@code key}, is held until the gate opens. */
  private record Held(BatchSigner signer, GatedSignatures gated, CompletableFuture<byte[]> first) {}

  private Held holdFirst(KeyPair keys, String key, int maxBytes) throws InterruptedException {
    GatedSignatures gated = new GatedSignatures(Signatures.fast());
    BatchSigner signer =
        new BatchSigner(new MetadataCodec(gated), keys.getPrivate(), executor, maxBytes);
    CompletableFuture<byte[]> first =
        CompletableFuture.supplyAsync(() -> signer.sign(log(key, 1)).join());
    gated.awaitFirst();
    return new Held(signer, gated, first);
  }

  @Test
  void aLogThatFindsTheSignerIdleIsSignedAloneInTheBytesOfBefore() {
    KeyPair keys = SigningKeys.generate();
    MetadataCodec codec = new MetadataCodec();
    BatchSigner signer = new BatchSigner(codec, keys.getPrivate(), executor, MAX);
    MetadataLog log = log("idle", 3);
    CompletableFuture<byte[]> signed = signer.sign(log);
    assertThat(signed).isDone();
    assertThat(signed.join()).isEqualTo(codec.encode(log, keys.getPrivate()));
    assertThat(algorithm(signed.join())).isEqualTo(MetadataCodec.SIG_ED25519_SHA256);
    assertThat(signer.signatures()).isEqualTo(1);
  }

  @Test
  void logsThatWaitForTheSignerShareOneSignatureAndEachVerifiesOnceForAll() throws Exception {
    KeyPair keys = SigningKeys.generate();
    // The first log finds the signer idle and is held inside its signature.
    Held held = holdFirst(keys, "w0", MAX);
    GatedSignatures gated = held.gated();
    BatchSigner signer = held.signer();
    CompletableFuture<byte[]> first = held.first();
    List<MetadataLog> logs = new ArrayList<>();
    List<CompletableFuture<byte[]>> waiting = new ArrayList<>();
    for (int i = 1; i <= 9; i++) {
      MetadataLog l = log("w" + i, 1 + i % 3);
      logs.add(l);
      waiting.add(signer.sign(l));
    }
    for (CompletableFuture<byte[]> w : waiting) {
      assertThat(w).as("waits for the signature in progress").isNotDone();
    }
    gated.open();
    assertThat(algorithm(first.get(10, TimeUnit.SECONDS)))
        .isEqualTo(MetadataCodec.SIG_ED25519_SHA256);
    GatedSignatures verifier = new GatedSignatures(Signatures.fast());
    verifier.open();
    MetadataCodec reader = new MetadataCodec(verifier);
    for (int i = 0; i < logs.size(); i++) {
      byte[] bytes = waiting.get(i).get(10, TimeUnit.SECONDS);
      assertThat(algorithm(bytes)).isEqualTo(MetadataCodec.SIG_ED25519_BATCH);
      MetadataLog l = logs.get(i);
      assertThat(reader.decode(bytes, l.key(), "alice", keys.getPublic(), MAX)).isEqualTo(l);
    }
    // Two signatures for ten logs; the nine of the batch verified with one verification.
    assertThat(gated.signs()).isEqualTo(2);
    assertThat(signer.signatures()).isEqualTo(2);
    assertThat(signer.logs()).isEqualTo(10);
    assertThat(verifier.verifies()).isEqualTo(1);
    // Another client's codec finds nothing of the first's: it verifies the root itself, once.
    GatedSignatures second = new GatedSignatures(Signatures.fast());
    second.open();
    MetadataCodec other = new MetadataCodec(second);
    for (int i = 0; i < logs.size(); i++) {
      MetadataLog l = logs.get(i);
      byte[] bytes = waiting.get(i).get(10, TimeUnit.SECONDS);
      assertThat(other.decode(bytes, l.key(), "alice", keys.getPublic(), MAX)).isEqualTo(l);
    }
    assertThat(second.verifies()).isEqualTo(1);
  }

  @Test
  void withAnExecutorThatRunsOnTheCallersThreadRoundsFollowOneAnotherWithoutNesting() {
    KeyPair keys = SigningKeys.generate();
    GatedSignatures counted = new GatedSignatures(Signatures.fast());
    counted.open();
    BatchSigner signer =
        new BatchSigner(new MetadataCodec(counted), keys.getPrivate(), Runnable::run, MAX);
    // Each signature brings one more log while it is made, so every round is followed by another:
    // 3,000 rounds in a row on one thread. Nested, each round would run inside the last.
    int rounds = 3_000;
    List<CompletableFuture<byte[]>> arrivals = new ArrayList<>();
    int[] depth = {Integer.MAX_VALUE, 0};
    counted.onSign(
        () -> {
          int d = Thread.currentThread().getStackTrace().length;
          depth[0] = Math.min(depth[0], d);
          depth[1] = Math.max(depth[1], d);
          if (arrivals.size() < rounds) {
            arrivals.add(signer.sign(log("chain" + arrivals.size(), 1)));
          }
        });
    byte[] first = signer.sign(log("chain-first", 1)).join();
    assertThat(algorithm(first)).isEqualTo(MetadataCodec.SIG_ED25519_SHA256);
    assertThat(arrivals).hasSize(rounds).allMatch(CompletableFuture::isDone);
    assertThat(counted.signs()).isEqualTo(rounds + 1);
    assertThat(depth[1] - depth[0]).as("stack growth over %d rounds", rounds).isLessThan(20);
  }

  @Test
  void aContinuationOfASignedLogMaySignAnotherAndWaitForIt() throws Exception {
    KeyPair keys = SigningKeys.generate();
    Held held = holdFirst(keys, "cont-first", MAX);
    BatchSigner signer = held.signer();
    CompletableFuture<byte[]> first = held.first();
    // A waiting log whose continuation (on the thread of its round) signs another log and blocks
    // on it, as a blocking write in a write's callback would: no continuation runs inside a round,
    // so the second log is signed, not queued behind the round that is completing.
    CompletableFuture<byte[]> nested =
        signer
            .sign(log("cont-waiting", 1))
            .thenApply(b -> signer.sign(log("cont-nested", 1)).join());
    held.gated().open();
    first.get(10, TimeUnit.SECONDS);
    assertThat(algorithm(nested.get(10, TimeUnit.SECONDS)))
        .isEqualTo(MetadataCodec.SIG_ED25519_SHA256);
  }

  @Test
  void everySizeOfBatchGivesEachLogAPathToTheSignedRoot() throws Exception {
    KeyPair keys = SigningKeys.generate();
    MetadataCodec codec = new MetadataCodec();
    BatchSigner signer = new BatchSigner(codec, keys.getPrivate(), executor, MAX);
    for (int n : new int[] {2, 3, 4, 5, 7, 8, 9, 31, 32, 33, BatchSigner.MAX_BATCH}) {
      List<MetadataLog> logs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        logs.add(log("size" + n + "-" + i, 1));
      }
      List<byte[]> signed = signer.signTogether(logs);
      assertThat(signed).hasSize(n);
      for (int i = 0; i < n; i++) {
        byte[] bytes = signed.get(i);
        assertThat(algorithm(bytes)).as("batch of %d, log %d", n, i).isEqualTo(3);
        assertThat(
                new MetadataCodec()
                    .decode(bytes, logs.get(i).key(), "alice", keys.getPublic(), MAX))
            .isEqualTo(logs.get(i));
        // A path has at most ceil(log2 n) steps.
        int body = MetadataCodec.body(logs.get(i)).length();
        int steps = (bytes.length - body - 66 - 1) / 33;
        assertThat(steps).isBetween(1, 32 - Integer.numberOfLeadingZeros(n - 1));
      }
    }
  }

  @Test
  void aForgedPathSiblingSideOrSignatureIsRefusedAndNoBatchLogPassesForAnother() {
    KeyPair keys = SigningKeys.generate();
    BatchSigner signer = new BatchSigner(new MetadataCodec(), keys.getPrivate(), executor, MAX);
    List<MetadataLog> logs = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      logs.add(log("forge" + i, 2));
    }
    List<byte[]> signed = signer.signTogether(logs);
    byte[] bytes = signed.get(2);
    int body = MetadataCodec.body(logs.get(2)).length();
    // Every byte of the trailer (algorithm, signature, path) flipped, and every cut: refused.
    for (int i = body; i < bytes.length; i++) {
      byte[] bad = bytes.clone();
      bad[i] ^= 0x04;
      assertThatThrownBy(
              () -> new MetadataCodec().decode(bad, "forge2", "alice", keys.getPublic(), MAX))
          .as("flipping byte %d of %d", i, bytes.length)
          .isInstanceOf(MalformedMetadataException.class);
    }
    for (int n = 0; n < bytes.length; n++) {
      byte[] cut = Arrays.copyOf(bytes, n);
      assertThatThrownBy(
              () -> new MetadataCodec().decode(cut, "forge2", "alice", keys.getPublic(), MAX))
          .as("cut to %d bytes", n)
          .isInstanceOf(MalformedMetadataException.class);
    }
    byte[] trailing = Arrays.copyOf(bytes, bytes.length + 1);
    assertThatThrownBy(
            () -> new MetadataCodec().decode(trailing, "forge2", "alice", keys.getPublic(), MAX))
        .hasMessageContaining("trailing");
    // A side that is neither 0 nor 1; no path; a path longer than any accepted.
    int pathAt = body + 66;
    byte[] side = bytes.clone();
    side[pathAt + 1] = 2;
    assertThatThrownBy(
            () -> new MetadataCodec().decode(side, "forge2", "alice", keys.getPublic(), MAX))
        .isInstanceOf(MalformedMetadataException.class)
        .hasMessageContaining("side 2");
    byte[] none = Arrays.copyOf(bytes, pathAt + 1);
    none[pathAt] = 0;
    assertThatThrownBy(
            () -> new MetadataCodec().decode(none, "forge2", "alice", keys.getPublic(), MAX))
        .hasMessageContaining("0 steps");
    byte[] deep = bytes.clone();
    deep[pathAt] = (byte) (MetadataCodec.MAX_PATH + 1);
    assertThatThrownBy(
            () -> new MetadataCodec().decode(deep, "forge2", "alice", keys.getPublic(), MAX))
        .hasMessageContaining("33 steps");
    // One log's body with another's path and signature: not what the root covers.
    byte[] other = signed.get(3);
    int otherBody = MetadataCodec.body(logs.get(3)).length();
    byte[] swapped = new byte[body + (other.length - otherBody)];
    System.arraycopy(bytes, 0, swapped, 0, body);
    System.arraycopy(other, otherBody, swapped, body, other.length - otherBody);
    assertThatThrownBy(
            () -> new MetadataCodec().decode(swapped, "forge2", "alice", keys.getPublic(), MAX))
        .isInstanceOf(MalformedMetadataException.class)
        .extracting(x -> ((MalformedMetadataException) x).kind())
        .isEqualTo(CloudFault.Kind.BAD_SIGNATURE);
    // Asked for another key of the batch, a log of the batch is refused by its name.
    assertThatThrownBy(
            () -> new MetadataCodec().decode(other, "forge2", "alice", keys.getPublic(), MAX))
        .hasMessageContaining("is for key 'forge3'");
    // And under another writer's key, by its signature.
    KeyPair mallory = SigningKeys.generate();
    assertThatThrownBy(
            () ->
                new MetadataCodec()
                    .decode(signed.get(4), "forge4", "alice", mallory.getPublic(), MAX))
        .isInstanceOf(MalformedMetadataException.class)
        .extracting(x -> ((MalformedMetadataException) x).kind())
        .isEqualTo(CloudFault.Kind.BAD_SIGNATURE);
  }

  @Test
  void batchesSignedByTheDefaultSignerAndByTheJdksAreTheSameBytesAndVerifyUnderEither()
      throws Exception {
    KeyPair keys = SigningKeys.generate();
    Signatures jdk = Signatures.jca(Security.getProvider("SunEC"));
    List<MetadataLog> logs = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      logs.add(log("interop" + i, 1 + i));
    }
    List<byte[]> fast =
        new BatchSigner(new MetadataCodec(Signatures.fast()), keys.getPrivate(), executor, MAX)
            .signTogether(logs);
    List<byte[]> byJdk =
        new BatchSigner(new MetadataCodec(jdk), keys.getPrivate(), executor, MAX)
            .signTogether(logs);
    for (int i = 0; i < logs.size(); i++) {
      assertThat(byJdk.get(i)).isEqualTo(fast.get(i));
    }
    // Signed by one, verified by the other, with a cold root cache: a fresh key per direction.
    for (Signatures[] pair :
        List.of(
            new Signatures[] {Signatures.fast(), jdk}, new Signatures[] {jdk, Signatures.fast()})) {
      KeyPair k = SigningKeys.generate();
      List<byte[]> signed =
          new BatchSigner(new MetadataCodec(pair[0]), k.getPrivate(), executor, MAX)
              .signTogether(logs);
      MetadataCodec reader = new MetadataCodec(pair[1]);
      for (int i = 0; i < logs.size(); i++) {
        assertThat(reader.decode(signed.get(i), logs.get(i).key(), "alice", k.getPublic(), MAX))
            .isEqualTo(logs.get(i));
      }
      byte[] forged = signed.get(0).clone();
      forged[forged.length - 40] ^= 0x01;
      assertThatThrownBy(
              () -> reader.decode(forged, logs.get(0).key(), "alice", k.getPublic(), MAX))
          .isInstanceOf(MalformedMetadataException.class)
          .extracting(x -> ((MalformedMetadataException) x).kind())
          .isEqualTo(CloudFault.Kind.BAD_SIGNATURE);
    }
  }

  @Test
  void aLogTooLongToCarryAPathIsSignedAloneEvenWhenOthersWait() throws Exception {
    KeyPair keys = SigningKeys.generate();
    MetadataLog small = log("small", 1);
    MetadataLog big = log("big", 40);
    // Room for the small logs and a path, not for the big one with a path.
    int max = MetadataCodec.body(big).length() + 66 + 100;
    Held held = holdFirst(keys, "held", max);
    GatedSignatures gated = held.gated();
    BatchSigner signer = held.signer();
    CompletableFuture<byte[]> first = held.first();
    CompletableFuture<byte[]> a = signer.sign(small);
    CompletableFuture<byte[]> b = signer.sign(log("small2", 1));
    CompletableFuture<byte[]> alone = CompletableFuture.supplyAsync(() -> signer.sign(big).join());
    gated.open();
    first.get(10, TimeUnit.SECONDS);
    assertThat(algorithm(a.get(10, TimeUnit.SECONDS))).isEqualTo(3);
    assertThat(algorithm(b.get(10, TimeUnit.SECONDS))).isEqualTo(3);
    byte[] bigBytes = alone.get(10, TimeUnit.SECONDS);
    assertThat(algorithm(bigBytes)).isEqualTo(2);
    assertThat(bigBytes.length).isLessThanOrEqualTo(max);
    assertThat(new MetadataCodec().decode(bigBytes, "big", "alice", keys.getPublic(), max))
        .isEqualTo(big);
  }
}
