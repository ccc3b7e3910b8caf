package io.rafestore.internal.protocol.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudFault;
import io.rafestore.CloudRole;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.internal.protocol.Harness;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.MalformedMetadataException;
import io.rafestore.internal.protocol.metadata.MetadataCodec;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.Provider;
import java.security.Security;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.junit.jupiter.api.Test;

/**
 * The default Ed25519 (BouncyCastle's low-level API, no provider given) and {@code
 * Builder.signatureProvider}: the JDK's own (SunEC) and BouncyCastle's JCA provider sign the same
 * bytes as the default (Ed25519 is deterministic), so clients with any of them read each other's
 * metadata, with keys from {@link SigningKeys}; each rejects what the others reject (a flipped
 * signature or body byte, a signature whose scalar is not reduced); a provider without Ed25519, and
 * a key the default cannot decode, are refused at build.
 */
class SignatureProviderTest {
  static final Provider BC = new BouncyCastleProvider();
  static final Provider JDK = Security.getProvider("SunEC");

  /** Null (the default), the JDK's and BouncyCastle's JCA provider. */
  static final List<Provider> SIGNERS = java.util.Arrays.asList(null, JDK, BC);

  private static String name(Provider p) {
    return p == null ? "default" : p.getName();
  }

  private static MetadataLog sampleLog() {
    LogEntry e = LogEntry.replica(1, 5, "d/x/alice/00", 3, new byte[32], List.of("p0", "p1"));
    return new MetadataLog("k", "alice", 1, 0, List.of(e));
  }

  @Test
  void everySignerSignsTheSameBytes() {
    KeyPair keys = SigningKeys.generate();
    MetadataLog log = sampleLog();
    byte[] reference = new MetadataCodec().encode(log, keys.getPrivate());
    for (Provider p : SIGNERS) {
      Settings s = settings(keys, p);
      assertThat(new MetadataCodec(p).encode(log, s.writerKeys().getPrivate()))
          .as("signed by %s", name(p))
          .isEqualTo(reference);
    }
    // A given provider's keys are translated into its own classes, not the JDK's.
    assertThat(settings(keys, BC).writerKeys().getPrivate().getClass().getName())
        .contains("bouncycastle");
  }

  @Test
  void logsSignedByAnySignerVerifyUnderEveryOtherAndForgeriesFailUnderAll() throws Exception {
    KeyPair keys = SigningKeys.generate();
    long sequence = 0;
    for (Provider signer : SIGNERS) {
      for (Provider verifier : SIGNERS) {
        // A log of its own per pair: verified logs are cached by their bytes and key, and a
        // cached log would not be verified again.
        LogEntry e = LogEntry.replica(1, 5, "d/x/alice/00", 3, new byte[32], List.of("p0", "p1"));
        MetadataLog log = new MetadataLog("k", "alice", ++sequence, 0, List.of(e));
        byte[] bytes =
            new MetadataCodec(signer).encode(log, settings(keys, signer).writerKeys().getPrivate());
        int sigAt = bytes.length - 64;
        byte[] badSig = bytes.clone();
        badSig[sigAt + 10] ^= 0x01;
        // The entry's createdAtMillis (5): the body still parses, but is not what was signed.
        byte[] badBody = bytes.clone();
        assertThat(badBody[42]).isEqualTo((byte) 5);
        badBody[42] ^= 0x01;
        byte[] unreduced = withUnreducedScalar(bytes);
        java.security.PublicKey pk = settings(keys, verifier).trustedWriters().get("alice");
        MetadataCodec codec = new MetadataCodec(verifier);
        String pair = "signed by " + name(signer) + ", verified by " + name(verifier);
        for (byte[] bad : List.of(badSig, badBody, unreduced)) {
          assertThatThrownBy(() -> codec.decode(bad, "k", "alice", pk, 1 << 20))
              .as(pair)
              .isInstanceOf(MalformedMetadataException.class)
              .extracting(x -> ((MalformedMetadataException) x).kind())
              .isEqualTo(CloudFault.Kind.BAD_SIGNATURE);
        }
        java.security.PublicKey other =
            settings(SigningKeys.generate(), verifier).trustedWriters().get("alice");
        assertThatThrownBy(() -> codec.decode(bytes, "k", "alice", other, 1 << 20))
            .as(pair + ", under another writer's key")
            .isInstanceOf(MalformedMetadataException.class);
        assertThat(codec.decode(bytes, "k", "alice", pk, 1 << 20)).as(pair).isEqualTo(log);
      }
    }
  }

  /**
   * The same signature with its scalar S replaced by S + L (L the group order): the same point
   * equation holds, so an implementation that did not insist on S < L (RFC 8032 section 5.1.7)
   * would accept a second signature of one log.
   */
  private static byte[] withUnreducedScalar(byte[] signed) {
    int at = signed.length - 32;
    java.math.BigInteger order =
        java.math.BigInteger.TWO
            .pow(252)
            .add(new java.math.BigInteger("27742317777372353535851937790883648493"));
    byte[] le = java.util.Arrays.copyOfRange(signed, at, signed.length);
    byte[] be = new byte[33];
    for (int i = 0; i < 32; i++) {
      be[32 - i] = le[i];
    }
    java.math.BigInteger s = new java.math.BigInteger(be).add(order);
    byte[] sum = s.toByteArray();
    byte[] out = signed.clone();
    java.util.Arrays.fill(out, at, out.length, (byte) 0);
    for (int i = 0; i < 32 && i < sum.length; i++) {
      out[at + i] = sum[sum.length - 1 - i];
    }
    assertThat(s.bitLength()).isLessThanOrEqualTo(256);
    return out;
  }

  @Test
  void clientsWithAnySignerReadEachOthersWrites() throws Exception {
    for (Provider p : List.of(JDK, BC)) {
      List<MemoryCloud> clouds = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        clouds.add(new MemoryCloud("p" + i));
      }
      KeyPair alice = SigningKeys.generate();
      KeyPair bob = SigningKeys.generate();
      try (RafeStore a = store(clouds, "alice", alice, bob, p);
          RafeStore b = store(clouds, "bob", bob, alice, null)) {
        byte[] v1 = ("from alice, signed by " + name(p)).getBytes(StandardCharsets.UTF_8);
        a.blocking().write("k", v1);
        assertThat(b.blocking().read("k").value()).isEqualTo(v1);
        byte[] v2 = "from bob, signed by the default".getBytes(StandardCharsets.UTF_8);
        b.blocking().write("k", v2);
        assertThat(a.blocking().read("k").value()).isEqualTo(v2);
        assertThat(a.blocking().history("k", java.util.Optional.empty(), 10).versions()).hasSize(2);
      }
    }
  }

  @Test
  void aKeyTheDefaultSignerCannotDecodeIsRefusedNamingTheSetting() {
    java.security.PublicKey bogus =
        new java.security.PublicKey() {
          private static final long serialVersionUID = 1L;

          @Override
          public String getAlgorithm() {
            return "Ed25519";
          }

          @Override
          public String getFormat() {
            return "X.509";
          }

          @Override
          public byte[] getEncoded() {
            return new byte[] {1, 2, 3};
          }
        };
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .writer("alice", SigningKeys.generate())
            .trustWriter("bob", bogus);
    for (int i = 0; i < 4; i++) {
      b.cloud(new MemoryCloud("p" + i));
    }
    assertThatThrownBy(b::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("trustWriter(bob)")
        .hasMessageContaining("Ed25519");
  }

  @Test
  void aProviderWithoutEd25519IsRefusedNamingTheSetting() {
    Provider sunJce = Security.getProvider("SunJCE");
    assertThat(sunJce).isNotNull();
    List<MemoryCloud> clouds = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      clouds.add(new MemoryCloud("p" + i));
    }
    assertThatThrownBy(
            () -> store(clouds, "alice", SigningKeys.generate(), SigningKeys.generate(), sunJce))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("signatureProvider")
        .hasMessageContaining("SunJCE")
        .hasMessageContaining("Ed25519");
  }

  private static RafeStore store(
      List<MemoryCloud> clouds, String writer, KeyPair own, KeyPair other, Provider provider) {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .writer(writer, own)
            .trustWriter(writer.equals("alice") ? "bob" : "alice", other.getPublic())
            .signatureProvider(provider)
            .closeDrivers(false);
    for (MemoryCloud c : clouds) {
      b.cloud(c, CloudRole.DATA_AND_METADATA, java.time.Duration.ofMillis(10));
    }
    return b.build();
  }

  private static Settings settings(KeyPair keys, Provider provider) {
    RafeStore.Builder b =
        RafeStore.builder().faultsTolerated(1).writer("alice", keys).signatureProvider(provider);
    for (int i = 0; i < 4; i++) {
      b.cloud(new MemoryCloud("p" + i));
    }
    return Harness.settings(b.build());
  }
}
