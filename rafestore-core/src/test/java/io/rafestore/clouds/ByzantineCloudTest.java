package io.rafestore.clouds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.clouds.ByzantineCloud.Behaviour;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class ByzantineCloudTest {
  private static final ObjectKey DATA = ObjectKey.of("data/v1");
  private static final ObjectKey META = ObjectKey.of("meta/log");

  private final MemoryCloud mem = new MemoryCloud("p1");
  private final ByzantineCloud cloud = new ByzantineCloud(mem, 99);

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static int differingBytes(byte[] a, byte[] b) {
    int n = 0;
    for (int i = 0; i < Math.min(a.length, b.length); i++) {
      if (a[i] != b[i]) {
        n++;
      }
    }
    return n + Math.abs(a.length - b.length);
  }

  @Test
  void honestCloudTellsTheTruth() {
    cloud.put(DATA, bytes("truth")).join();

    assertThat(cloud.get(DATA).join()).isEqualTo(bytes("truth"));
    assertThat(cloud.liesTold()).isZero();
    assertThat(cloud.behaviour()).isEqualTo(Behaviour.HONEST);
  }

  @Test
  void corruptFlipsAFewBytesOfTheStoredObject() {
    byte[] value = new byte[1000];
    cloud.put(DATA, value).join();
    cloud.behave(Behaviour.CORRUPT);

    byte[] read = cloud.get(DATA).join();

    assertThat(read).hasSize(1000);
    assertThat(differingBytes(read, value)).isBetween(1, 4);
    assertThat(mem.get(DATA).join()).isEqualTo(value); // the stored copy is intact
    assertThat(cloud.liesTold()).isEqualTo(1);
  }

  @Test
  void corruptionOfAnEmptyObjectIsVisible() {
    cloud.put(DATA, new byte[0]).join();
    cloud.behave(Behaviour.CORRUPT);

    assertThat(cloud.get(DATA).join()).hasSize(1);
  }

  @Test
  void lyingIsRepeatableUnderTheSameSeed() {
    assertThat(corruptReads(5)).isEqualTo(corruptReads(5)).isNotEqualTo(corruptReads(6));
  }

  private static List<String> corruptReads(long seed) {
    ByzantineCloud c = new ByzantineCloud(new MemoryCloud("x"), seed);
    c.put(DATA, new byte[64]).join();
    c.behave(Behaviour.CORRUPT);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      out.add(Arrays.toString(c.get(DATA).join()));
    }
    return out;
  }

  @Test
  void staleReturnsThePreviousVersion() {
    cloud.put(META, bytes("v1")).join();
    cloud.put(META, bytes("v2")).join();
    cloud.put(META, bytes("v3")).join();
    cloud.behave(Behaviour.STALE);

    assertThat(cloud.get(META).join()).isEqualTo(bytes("v2"));
    assertThat(cloud.get(META, Optional.of(ByteRange.of(1, 5))).join()).isEqualTo(bytes("2"));
  }

  @Test
  void staleWithoutAnOlderVersionReturnsTheCurrentOne() {
    cloud.put(META, bytes("only")).join();
    cloud.behave(Behaviour.STALE);

    assertThat(cloud.get(META).join()).isEqualTo(bytes("only"));
    assertThat(cloud.liesTold()).isZero();
  }

  @Test
  void staleCloudResurrectsDeletedObjects() {
    cloud.put(META, bytes("old")).join();
    cloud.put(META, bytes("new")).join();
    cloud.delete(META).join();
    cloud.behave(Behaviour.STALE);

    assertThat(cloud.get(META).join()).isEqualTo(bytes("old"));
  }

  @Test
  void otherKeyReturnsAnotherObject() {
    cloud.put(DATA, bytes("data")).join();
    cloud.put(META, bytes("meta")).join();
    cloud.behave(Behaviour.OTHER_KEY);

    assertThat(cloud.get(DATA).join()).isEqualTo(bytes("meta"));
    assertThat(cloud.get(META).join()).isEqualTo(bytes("data"));
  }

  @Test
  void otherKeyWithNoOtherObjectTellsTheTruth() {
    cloud.put(DATA, bytes("data")).join();
    cloud.behave(Behaviour.OTHER_KEY);

    assertThat(cloud.get(DATA).join()).isEqualTo(bytes("data"));
  }

  @Test
  void dropWritesAcknowledgesWithoutStoringAndHidesFromListings() {
    cloud.put(DATA, bytes("kept")).join();
    cloud.behave(Behaviour.DROP_WRITES, key -> key.value().startsWith("meta/"));

    cloud.put(META, bytes("dropped")).join();
    cloud.put(ObjectKey.of("data/v2"), bytes("stored")).join();
    mem.put(ObjectKey.of("meta/other"), bytes("there")).join();

    assertThat(mem.get(META)).isCompletedExceptionally();
    assertThat(mem.get(ObjectKey.of("data/v2")).join()).isEqualTo(bytes("stored"));
    assertThat(cloud.list("").join())
        .extracting(ObjectInfo::key)
        .containsExactly(DATA, ObjectKey.of("data/v2"));
  }

  @Test
  void dropWritesIgnoresDeletes() {
    cloud.put(DATA, bytes("x")).join();
    cloud.behave(Behaviour.DROP_WRITES);

    cloud.delete(DATA).join();

    assertThat(mem.get(DATA).join()).isEqualTo(bytes("x"));
  }

  @Test
  void garbleReturnsNoiseOfTheTrueLength() {
    byte[] value = new byte[256];
    cloud.put(DATA, value).join();
    cloud.behave(Behaviour.GARBLE);

    byte[] read = cloud.get(DATA).join();

    assertThat(read).hasSize(256);
    assertThat(differingBytes(read, value)).isGreaterThan(200);
  }

  @Test
  void customForgeryIsAppliedToReadsOfMatchingObjectsOnly() {
    cloud.put(DATA, bytes("data")).join();
    cloud.put(META, bytes("signed by the writer")).join();
    cloud.forge(b -> bytes("signed by mallory"), key -> key.equals(META));

    assertThat(cloud.get(META).join()).isEqualTo(bytes("signed by mallory"));
    assertThat(cloud.get(DATA).join()).isEqualTo(bytes("data"));
    assertThat(cloud.behaviour()).isEqualTo(Behaviour.CUSTOM);
  }

  @Test
  void predicateLimitsTheLies() {
    cloud.put(DATA, bytes("data")).join();
    cloud.put(META, bytes("meta")).join();
    cloud.behave(Behaviour.GARBLE, key -> key.value().startsWith("meta/"));

    assertThat(cloud.get(DATA).join()).isEqualTo(bytes("data"));
    assertThat(cloud.get(META).join()).isNotEqualTo(bytes("meta"));
  }

  @Test
  void honestAgainAfterSwitchingBack() {
    cloud.put(DATA, bytes("data")).join();
    cloud.behave(Behaviour.GARBLE).honest();

    assertThat(cloud.get(DATA).join()).isEqualTo(bytes("data"));
  }

  @Test
  void missingObjectsStayMissing() {
    cloud.behave(Behaviour.CORRUPT);

    assertThatThrownBy(() -> cloud.get(DATA).join())
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOfSatisfying(
            CloudException.class,
            e -> assertThat(e.kind()).isEqualTo(CloudException.Kind.NOT_FOUND));
  }

  @Test
  void customNeedsAFunction() {
    assertThatThrownBy(() -> cloud.behave(Behaviour.CUSTOM))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("forge");
  }

  @Test
  void cancellingAnAlteredReadCancelsTheCloudsFuture() {
    PendingCloud pending = new PendingCloud();
    ByzantineCloud liar = new ByzantineCloud(pending, 1).behave(Behaviour.CORRUPT);

    liar.get(DATA).cancel(true);

    assertThat(pending.calls.get(0)).isCancelled();
    assertThat(liar.liesTold()).isZero();
  }
}
