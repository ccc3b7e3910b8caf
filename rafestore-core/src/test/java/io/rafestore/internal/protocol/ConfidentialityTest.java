package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudFault;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreListener;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.WriteReceipt;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.internal.codec.Aead;
import io.rafestore.internal.codec.MalformedInputException;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.codec.Shamir;
import io.rafestore.internal.protocol.TestCloud.Behaviour;
import io.rafestore.internal.protocol.layout.KeyShares;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.MetadataCodec;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ObjectInfo;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The confidentiality option of the RafeStore modes: no cloud stores plaintext, the key exists only
 * as shares in the clouds' metadata envelopes, any f clouds' shares are useless and any f+1 recover
 * it, and reads find enough shares even when readM's quorum did not bring them.
 */
class ConfidentialityTest {
  private static final String KEY = "private/diary";

  private static byte[] secret(int i) {
    return ("entry " + i + ": the combination is 12-34-56, " + "x".repeat(3000) + " END")
        .getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void noStoredObjectHoldsPlaintextOrItsHash(ProtocolMode mode) throws Exception {
    Harness h = new Harness(1, 4).rtts(ProtocolTest.TABLE1);
    List<byte[]> written = new ArrayList<>();
    try (RafeStore store = h.builder(mode).encryptValues(true).build()) {
      for (int i = 0; i < 3; i++) {
        WriteReceipt r = h.run(store.write(KEY, secret(i)));
        written.add(secret(i));
        // Still f+1 data clouds: confidentiality does not cost the anticipation its savings.
        assertThat(r.info().dataClouds()).hasSize(2);
        assertThat(r.info().size()).isEqualTo(secret(i).length);
        assertThat(h.run(store.read(KEY)).value()).isEqualTo(secret(i));
      }
      for (MemoryCloud m : h.stores) {
        for (ObjectInfo info : h.run(m.list(""))) {
          byte[] stored = h.run(m.get(info.key()));
          for (byte[] plain : written) {
            for (int at = 0; at + 16 <= plain.length; at += 8) {
              byte[] window = Arrays.copyOfRange(plain, at, at + 16);
              assertThat(ProtocolTest.indexOf(stored, window))
                  .as("plaintext at %d in %s on %s", at, info.key(), m.id())
                  .isEqualTo(-1);
            }
            // Not even the plaintext's hash: it would let a cloud confirm a guessed value.
            assertThat(ProtocolTest.indexOf(stored, Sha256.hash(plain)))
                .as("plaintext hash in %s", info.key())
                .isEqualTo(-1);
          }
        }
      }
      // Every version stays readable.
      for (var v : h.run(store.history(KEY, java.util.Optional.empty(), 10)).versions()) {
        assertThat(written).anyMatch(w -> Arrays.equals(w, readValue(h, store, v.version())));
      }
    }
  }

  private static byte[] readValue(Harness h, RafeStore store, Version v) {
    try {
      return h.run(store.read(KEY, v)).value();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** The shares of the newest entry, as each cloud's metadata envelope holds them. */
  private static List<byte[]> sharesOnClouds(Harness h, LogEntry[] entryOut) throws Exception {
    MetadataCodec codec = new MetadataCodec();
    List<byte[]> out = new ArrayList<>();
    for (MemoryCloud m : h.stores) {
      byte[] bytes = h.run(m.get(Names.metadataObject(KEY, "alice")));
      MetadataCodec.Envelope env =
          codec.decodeEnvelope(bytes, KEY, "alice", Harness.ALICE.getPublic(), 1 << 20);
      LogEntry newest = env.log().entries().get(env.log().entries().size() - 1);
      entryOut[0] = newest;
      out.add(env.shares().get(newest.id()));
    }
    return out;
  }

  @Test
  void fCloudsSharesDoNotOpenTheValueAndFPlusOneDo() throws Exception {
    Harness h = new Harness(1, 4);
    byte[] value = secret(7);
    try (RafeStore store = h.builder(ProtocolMode.PAPER).encryptValues(true).build()) {
      h.run(store.write(KEY, value));
    }
    LogEntry[] entry = new LogEntry[1];
    List<byte[]> shares = sharesOnClouds(h, entry);
    assertThat(shares).allSatisfy(s -> assertThat(s).isNotNull());
    byte[] sealed = null;
    for (MemoryCloud m : h.stores) {
      try {
        sealed = h.run(m.get(io.rafestore.spi.ObjectKey.of(entry[0].dataObject())));
        break;
      } catch (java.util.concurrent.ExecutionException notHere) {
        // Only f+1 clouds hold the data.
      }
    }
    assertThat(sealed).isNotNull();
    byte[] ad = KeyShares.associatedData(KEY, "alice", entry[0].dataObject());
    for (int i = 0; i < 4; i++) {
      // Any f = 1 cloud alone: its share "recombined" is not the key.
      byte[] guess = Shamir.combine(List.of(Shamir.Share.parse(shares.get(i))));
      byte[] s = sealed;
      assertThatThrownBy(() -> Aead.withKey(guess).decrypt(s, ad))
          .isInstanceOf(MalformedInputException.class);
      for (int j = i + 1; j < 4; j++) {
        // Any f+1 = 2 clouds: the key, and the plaintext.
        byte[] key =
            Shamir.combine(
                List.of(Shamir.Share.parse(shares.get(i)), Shamir.Share.parse(shares.get(j))));
        assertThat(Aead.withKey(key).decrypt(sealed, ad)).isEqualTo(value);
      }
    }
  }

  /** A listener that adds every cloud fault it is told of to {@code faults}. */
  private static RafeStoreListener faultsInto(List<CloudFault> faults) {
    return new RafeStoreListener() {
      @Override
      public void cloudFault(String key, CloudFault fault) {
        faults.add(fault);
      }
    };
  }

  @Test
  void readAsksForMoreSharesWhenReadMBroughtTooFew() throws Exception {
    Harness h = new Harness(1, 4).rtts(5, 20, 40, 60);
    List<CloudFault> faults = new CopyOnWriteArrayList<>();
    try (RafeStore store =
        h.builder(ProtocolMode.PAPER).encryptValues(true).listener(faultsInto(faults)).build()) {
      h.run(store.write(KEY, secret(1)));
      // p3 is unreachable for the second write: it completes on p0, p1, p2 and p3 keeps the
      // first log only (with no share of the second version).
      h.clouds.get(3).rtt(Duration.ofSeconds(10_000));
      WriteReceipt second = h.run(store.write(KEY, secret(2)));
      // Now p3 is fast again, p2 slow, and p0 lies by serving its previous objects.
      h.clouds.get(3).rtt(Duration.ofMillis(5));
      h.clouds.get(2).rtt(Duration.ofSeconds(2));
      h.clouds.get(0).behave(Behaviour.STALE);
      faults.clear();
      // readM completes with p0 (stale), p1 and p3 (old log): one valid share of version 2 (p1).
      // The read must ask p2 for its share rather than fail.
      StoredValue v = h.run(store.read(KEY));
      assertThat(v.version()).isEqualTo(second.version());
      assertThat(v.value()).isEqualTo(secret(2));
    }
  }

  /**
   * A sealed write whose writeM reached one cloud only (its writer crashed there, or it is still in
   * flight): its signed entry is visible on that cloud, but only that cloud has its key share. A
   * read of the latest must not fail for it (found by StressHistoryTest's sealed shape): it returns
   * the newest version whose key can be recovered, and blames no correct cloud for lacking a share
   * of a version its log does not carry. Fails without {@code ReadOp.newestReadable} (the read
   * failed with "only 1 of the 2 key shares ... are valid") and without the stale check in {@code
   * KeyShares} (p1 to p3 reported as corrupt).
   */
  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void aReadOfTheLatestPassesOverASealedWriteWhoseSharesReachedTooFewClouds(ProtocolMode mode)
      throws Exception {
    Harness h = new Harness(1, 4);
    java.util.concurrent.atomic.AtomicBoolean cut = new java.util.concurrent.atomic.AtomicBoolean();
    io.rafestore.spi.ObjectKey log = Names.metadataObject(KEY, "alice");
    RafeStore.Builder b =
        h.wrapped(mode, (i, c) -> i == 0 ? c : new FailingPuts(c, k -> cut.get() && k.equals(log)))
            .encryptValues(true);
    try (RafeStore writer = b.build()) {
      WriteReceipt first = h.run(writer.write(KEY, secret(1)));
      cut.set(true);
      // writeM of the second version reaches p0 only: the write fails, its entry stays on p0.
      assertThatThrownBy(() -> h.run(writer.write(KEY, secret(2))))
          .isInstanceOf(java.util.concurrent.ExecutionException.class);
      List<CloudFault> faults = new CopyOnWriteArrayList<>();
      try (RafeStore reader =
          h.builder(mode).encryptValues(true).listener(faultsInto(faults)).build()) {
        StoredValue v = h.run(reader.read(KEY));
        assertThat(v.version()).isEqualTo(first.version());
        assertThat(v.value()).isEqualTo(secret(1));
        assertThat(faults)
            .as("no correct cloud is blamed for a share of a version its log does not carry")
            .noneMatch(f -> f.kind() == CloudFault.Kind.CORRUPT_DATA);
      }
      // A stream of the latest passes over it too, when it is opened (a fresh reader each time,
      // so its view comes from readM, not from the first reader's read tier).
      try (RafeStore reader =
          h.builder(mode).encryptValues(true).listener(faultsInto(faults)).build()) {
        try (java.io.InputStream in = reader.blocking().openStream(KEY)) {
          assertThat(in.readAllBytes()).isEqualTo(secret(1));
        }
        assertThat(faults).noneMatch(f -> f.kind() == CloudFault.Kind.CORRUPT_DATA);
      }
    }
  }

  @Test
  void aWriterThatForgotItsSharesRestoresThemFromTheClouds() throws Exception {
    Harness h = new Harness(1, 4);
    try (RafeStore first = h.builder(ProtocolMode.FAST).encryptValues(true).build()) {
      h.run(first.write(KEY, secret(1)));
    }
    // A restarted writer (new client, empty caches) writes the next version: each cloud's new
    // envelope must still carry that cloud's share of version 1.
    try (RafeStore second = h.builder(ProtocolMode.FAST).encryptValues(true).build()) {
      WriteReceipt r = h.run(second.write(KEY, secret(2)));
      assertThat(h.run(second.read(KEY)).value()).isEqualTo(secret(2));
      MetadataCodec codec = new MetadataCodec();
      for (MemoryCloud m : h.stores) {
        byte[] bytes = h.run(m.get(Names.metadataObject(KEY, "alice")));
        MetadataCodec.Envelope env =
            codec.decodeEnvelope(bytes, KEY, "alice", Harness.ALICE.getPublic(), 1 << 20);
        assertThat(env.log().entries()).hasSize(2);
        for (LogEntry e : env.log().entries()) {
          int i = e.shareHolders().indexOf(m.id());
          assertThat(env.shares().get(e.id()))
              .as("share of ts %d on %s", e.timestamp(), m.id())
              .isNotNull()
              .satisfies(s -> assertThat(Sha256.matches(s, e.shareHashUnsafe(i))).isTrue());
        }
      }
      assertThat(r.version().timestamp()).isEqualTo(2);
    }
  }

  @Test
  void depSkyAWithEncryptionIsRefusedNamingTheSetting() {
    Harness h = new Harness(1, 4);
    assertThatThrownBy(() -> h.builder(ProtocolMode.DEPSKY_A).encryptValues(true).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("encryptValues")
        .hasMessageContaining("DEPSKY_CA");
  }

  @Test
  void aSealedPartOpensOnlyAtItsOwnIndexInAValueOfItsOwnPartCount() throws Exception {
    Aead aead = Aead.withKey(Aead.newKey());
    String object = Names.dataObject(KEY, "alice", "00ff00ff00ff00ff00ff00ff").value();
    byte[] zero = new byte[32];
    LogEntry three =
        LogEntry.parts(1, 0, object, 3000, zero, List.of("p0", "p1"), List.of(zero, zero, zero))
            .sealed(List.of("p0", "p1", "p2", "p3"), List.of(zero, zero, zero, zero));
    LogEntry four =
        LogEntry.parts(
                1, 0, object, 4000, zero, List.of("p0", "p1"), List.of(zero, zero, zero, zero))
            .sealed(List.of("p0", "p1", "p2", "p3"), List.of(zero, zero, zero, zero));
    byte[] part1 = secret(1);
    part1 = Arrays.copyOf(part1, 1000);
    byte[] stored = aead.encrypt(part1, KeyShares.partAssociatedData(KEY, "alice", object, 1, 3));
    assertThat(three.storedPartSize(1)).isEqualTo(stored.length);
    assertThat(KeyShares.openPart(aead, KEY, "alice", three, 1, stored)).isEqualTo(part1);
    // Moved to another index, into a value of another part count, or under another writer's
    // name: AES-GCM refuses it.
    assertThatThrownBy(() -> KeyShares.openPart(aead, KEY, "alice", three, 2, stored))
        .isInstanceOf(io.rafestore.IntegrityException.class)
        .hasMessageContaining("part 2");
    assertThatThrownBy(() -> KeyShares.openPart(aead, KEY, "alice", four, 1, stored))
        .isInstanceOf(io.rafestore.IntegrityException.class);
    assertThatThrownBy(() -> KeyShares.openPart(aead, KEY, "bob", three, 1, stored))
        .isInstanceOf(io.rafestore.IntegrityException.class);
    // The last part of three is 1000 bytes: a 999-byte part sealed for it is refused by length.
    byte[] shortPart =
        aead.encrypt(new byte[999], KeyShares.partAssociatedData(KEY, "alice", object, 2, 3));
    assertThatThrownBy(() -> KeyShares.openPart(aead, KEY, "alice", three, 2, shortPart))
        .isInstanceOf(io.rafestore.IntegrityException.class)
        .hasMessageContaining("signed 1000");
  }
}
