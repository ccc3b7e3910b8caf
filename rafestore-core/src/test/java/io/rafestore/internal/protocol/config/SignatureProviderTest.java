package io.rafestore.internal.protocol.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudRole;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.internal.protocol.Harness;
import io.rafestore.internal.protocol.metadata.LogEntry;
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
 * {@code Builder.signatureProvider}: another JCA provider's Ed25519 signs the same bytes as the
 * JDK's (Ed25519 is deterministic), so clients with either provider read each other's metadata,
 * with keys from {@link SigningKeys}; a provider without Ed25519 is refused at build.
 */
class SignatureProviderTest {
  static final Provider BC = new BouncyCastleProvider();

  @Test
  void bothProvidersSignTheSameBytes() {
    KeyPair keys = SigningKeys.generate();
    LogEntry e = LogEntry.replica(1, 5, "d/x/alice/00", 3, new byte[32], List.of("p0", "p1"));
    MetadataLog log = new MetadataLog("k", "alice", 1, 0, List.of(e));
    Settings jdk = settings(keys, null);
    Settings bc = settings(keys, BC);
    byte[] a = new MetadataCodec().encode(log, jdk.writerKeys().getPrivate());
    byte[] b = new MetadataCodec(BC).encode(log, bc.writerKeys().getPrivate());
    assertThat(b).isEqualTo(a);
    // The translated key is the provider's own class, not the JDK's.
    assertThat(bc.writerKeys().getPrivate().getClass().getName()).contains("bouncycastle");
  }

  @Test
  void clientsWithEitherProviderReadEachOthersWrites() throws Exception {
    List<MemoryCloud> clouds = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      clouds.add(new MemoryCloud("p" + i));
    }
    KeyPair alice = SigningKeys.generate();
    KeyPair bob = SigningKeys.generate();
    try (RafeStore a = store(clouds, "alice", alice, bob, BC);
        RafeStore b = store(clouds, "bob", bob, alice, null)) {
      byte[] v1 = "from alice, signed by BouncyCastle".getBytes(StandardCharsets.UTF_8);
      a.blocking().write("k", v1);
      assertThat(b.blocking().read("k").value()).isEqualTo(v1);
      byte[] v2 = "from bob, signed by the JDK".getBytes(StandardCharsets.UTF_8);
      b.blocking().write("k", v2);
      assertThat(a.blocking().read("k").value()).isEqualTo(v2);
      assertThat(a.blocking().history("k", java.util.Optional.empty(), 10).versions()).hasSize(2);
    }
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
