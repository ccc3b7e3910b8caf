package io.rafestore.drivers.azure;

import static io.rafestore.testkit.DriverFailures.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.credential.AccessToken;
import com.azure.core.credential.TokenCredential;
import com.azure.core.credential.TokenRequestContext;
import com.azure.identity.CredentialUnavailableException;
import io.rafestore.clouds.Drivers;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.CloudSpec;
import io.rafestore.spi.ObjectKey;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

class AzureBlobCloudTest {
  @Test
  void wrongAccountKeyIsUnauthorized() throws Exception {
    String bad =
        AzuriteEmulator.connectionString()
            .replaceAll("AccountKey=[^;]+", "AccountKey=bm90LXRoZS1rZXk=");
    try (AzureBlobCloud d =
        AzureBlobCloud.builder("bad").connectionString(bad).container("any-container").build()) {
      CloudException e = failure(d.put(ObjectKey.of("k"), new byte[1]));
      assertThat(e.kind()).isEqualTo(CloudException.Kind.UNAUTHORIZED);
      assertThat(e.cloudId()).isEqualTo("bad");
    }
  }

  @Test
  void refusedConnectionIsUnavailable() throws Exception {
    String down =
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;"
            + "AccountKey=bm90LXRoZS1rZXk=;BlobEndpoint=http://127.0.0.1:1/devstoreaccount1;";
    try (AzureBlobCloud d =
        AzureBlobCloud.builder("down")
            .connectionString(down)
            .container("c-down")
            .maxTries(1)
            .connectTimeout(Duration.ofSeconds(2))
            .build()) {
      CloudException e = failure(d.get(ObjectKey.of("k")));
      assertThat(e.kind()).isEqualTo(CloudException.Kind.UNAVAILABLE);
      assertThat(e.cloudId()).isEqualTo("down");
    }
  }

  /** A token credential that counts its calls and answers with {@code answer}. */
  private static final class CountingCredential implements TokenCredential {
    final AtomicInteger calls = new AtomicInteger();
    final List<String> scopes = new CopyOnWriteArrayList<>();
    final Mono<AccessToken> answer;

    CountingCredential(Mono<AccessToken> answer) {
      this.answer = answer;
    }

    @Override
    public Mono<AccessToken> getToken(TokenRequestContext request) {
      calls.incrementAndGet();
      scopes.addAll(request.getScopes());
      return answer;
    }
  }

  @Test
  void tokenCredentialIsAskedForAStorageTokenBeforeTheRequest() throws Exception {
    CountingCredential cred =
        new CountingCredential(
            Mono.just(new AccessToken("t", OffsetDateTime.now(ZoneOffset.UTC).plusHours(1))));
    try (AzureBlobCloud d =
        AzureBlobCloud.builder("tok")
            .endpoint("https://127.0.0.1:1/devstoreaccount1")
            .credential(cred)
            .container("c-token")
            .maxTries(1)
            .connectTimeout(Duration.ofSeconds(2))
            .build()) {
      CloudException e = failure(d.get(ObjectKey.of("k")));
      assertThat(e.kind()).isEqualTo(CloudException.Kind.UNAVAILABLE);
    }
    assertThat(cred.calls.get()).isPositive();
    assertThat(cred.scopes).anyMatch(s -> s.startsWith("https://storage.azure.com"));
  }

  @Test
  void credentialWithoutATokenIsUnauthorized() throws Exception {
    CountingCredential cred =
        new CountingCredential(
            Mono.error(new CredentialUnavailableException("no identity on this machine")));
    try (AzureBlobCloud d =
        AzureBlobCloud.builder("notok")
            .endpoint("https://127.0.0.1:1/devstoreaccount1")
            .credential(cred)
            .container("c-token")
            .maxTries(1)
            .build()) {
      CloudException e = failure(d.put(ObjectKey.of("k"), new byte[1]));
      assertThat(e.kind()).isEqualTo(CloudException.Kind.UNAUTHORIZED);
      assertThat(e.cloudId()).isEqualTo("notok");
      assertThat(e.getMessage()).contains("no identity on this machine");
    }
  }

  @Test
  void builderNamesTheBadSetting() {
    assertThatThrownBy(
            () ->
                AzureBlobCloud.builder("a")
                    .container("abc")
                    .endpoint("https://127.0.0.1:1")
                    .sasToken("sv=1")
                    .anonymous()
                    .build())
        .hasMessageContaining("at most one of");
    assertThatThrownBy(() -> AzureBlobCloud.builder("a").connectionString("x").build())
        .hasMessageContaining("container");
    assertThatThrownBy(() -> AzureBlobCloud.builder("a").container("Upper").build())
        .hasMessageContaining("container");
    assertThatThrownBy(() -> AzureBlobCloud.builder("a").container("abc").build())
        .hasMessageContaining("connectionString or endpoint");
    assertThatThrownBy(
            () ->
                AzureBlobCloud.builder("a")
                    .container("abc")
                    .endpoint("https://127.0.0.1:1")
                    .maxTries(0)
                    .build())
        .hasMessageContaining("maxTries");
    AzureBlobCloud.Builder ok =
        AzureBlobCloud.builder("a").container("abc").endpoint("https://127.0.0.1:1");
    assertThatThrownBy(() -> ok.maxConnections(0).build())
        .hasMessageContaining("maxConnections must be in [1, 4096], was 0");
    assertThatThrownBy(() -> ok.maxConnections(4097).build())
        .hasMessageContaining("maxConnections");
    ok.maxConnections(1);
    assertThatThrownBy(() -> ok.finishCancelledUpTo(-1).build())
        .hasMessageContaining("finishCancelledUpTo must be in [0, 67108864], was -1");
    assertThatThrownBy(() -> ok.finishCancelledUpTo(64L * 1024 * 1024 + 1).build())
        .hasMessageContaining("finishCancelledUpTo");
  }

  @Test
  void cancelledSmallPutFinishesAndItsResultIsDropped() throws Exception {
    // Aborting would close the connection; a cancelled small request is left to finish instead,
    // so the object appears although the caller cancelled (the SPI allows either outcome).
    try (AzureBlobCloud d = AzuriteEmulator.fresh("cs")) {
      d.put(ObjectKey.of("warm"), new byte[1]).get(60, TimeUnit.SECONDS);
      for (int i = 0; i < 8; i++) {
        assertThat(d.put(ObjectKey.of("small-" + i), new byte[1024]).cancel(true)).isTrue();
      }
      for (int i = 0; i < 8; i++) {
        assertThat(eventually(d, ObjectKey.of("small-" + i))).as("small-" + i).isTrue();
      }
    }
  }

  @Test
  void requestsBeyondMaxConnectionsWaitAndAllComplete() throws Exception {
    try (AzureBlobCloud d =
        AzureBlobCloud.builder("mc")
            .connectionString(AzuriteEmulator.connectionString())
            .container("t-" + java.util.UUID.randomUUID())
            .maxConnections(2)
            .build()) {
      List<java.util.concurrent.CompletableFuture<Void>> puts = new java.util.ArrayList<>();
      // 2 in flight and 4 per connection waiting: all 10 are accepted (more would be refused at
      // once while the queue is full, see RequestSlotsTest).
      for (int i = 0; i < 10; i++) {
        puts.add(d.put(ObjectKey.of("k-" + i), new byte[] {(byte) i}));
      }
      java.util.concurrent.CompletableFuture.allOf(
              puts.toArray(new java.util.concurrent.CompletableFuture<?>[0]))
          .get(60, TimeUnit.SECONDS);
      assertThat(d.list("k-").get(60, TimeUnit.SECONDS)).hasSize(10);
    }
  }

  /** Whether {@code key} exists within 10 s. */
  private static boolean eventually(AzureBlobCloud d, ObjectKey key) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      try {
        d.get(key).get(10, TimeUnit.SECONDS);
        return true;
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        Thread.sleep(50);
      }
    }
    return false;
  }

  @Test
  void createdFromSpecByType() {
    assertThatThrownBy(() -> Drivers.create(CloudSpec.of("a0", "azure")))
        .hasMessageContaining("'bucket'");
    // No credentialsRef: DefaultAzureCredential, which needs https (nothing is sent at build).
    CloudSpec spec =
        CloudSpec.of("a0", "azure")
            .withBucket("abc")
            .withEndpoint("https://127.0.0.1:1/devstoreaccount1");
    try (CloudDriver d = Drivers.create(spec)) {
      assertThat(d).isInstanceOf(AzureBlobCloud.class);
    }
    CloudSpec plain = spec.withEndpoint("http://127.0.0.1:1/devstoreaccount1");
    assertThatThrownBy(() -> Drivers.create(plain))
        .hasMessageContaining("not https")
        .hasMessageContaining("DefaultAzureCredential");
    try (CloudDriver d = Drivers.create(plain.withOption("anonymous", "true"))) {
      assertThat(d).isInstanceOf(AzureBlobCloud.class);
    }
  }
}
