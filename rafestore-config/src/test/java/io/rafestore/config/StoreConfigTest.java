package io.rafestore.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rafestore.CloudRole;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class StoreConfigTest {
  @TempDir Path dir;

  private KeyPair alice;
  private KeyPair bob;

  /** Four directory clouds, lines 1-8. */
  private static final String FOUR_CLOUDS =
      """
      cloud.a.type = directory
      cloud.a.bucket = clouds/a
      cloud.b.type = directory
      cloud.b.bucket = clouds/b
      cloud.c.type = directory
      cloud.c.bucket = clouds/c
      cloud.d.type = directory
      cloud.d.bucket = clouds/d
      """;

  @BeforeEach
  void keys() throws IOException {
    alice = SigningKeys.generate();
    bob = SigningKeys.generate();
    KeyFiles.write(dir.resolve("alice.key"), "alice", alice);
    KeyFiles.write(dir.resolve("bob.key"), "bob", bob);
  }

  private Path write(String text) throws IOException {
    Path file = dir.resolve("rafestore.properties");
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  private ConfigException fails(String text) throws IOException {
    Path file = write(text);
    return assertThrows(ConfigException.class, () -> StoreConfig.load(file));
  }

  @Test
  void readsEveryField() throws IOException {
    Path file =
        write(
            """
            # a comment
            ! another comment
            f = 1
            mode = fast
            writer.id = alice
            writer.key = alice.key
            trusted.bob = bob.pub
            trusted.carol = base64:%s
            operationTimeout = 90s
            maxValueBytes = 16MiB
            dataCloudsInOrderAdded = true
            encryptValues = true
            erasureCoding = 2
            partSize = 4MiB
            partsInFlight = 8
            speculativeReadLimit = 1MiB

            cloud.s3.type = s3
            cloud.s3.endpoint = http://127.0.0.1:19000
            cloud.s3.bucket = data
            cloud.s3.region = eu-west-1
            cloud.s3.credentials = env:MY_S3_KEYS
            cloud.s3.rtt = 80ms
            cloud.s3.option.pathStyle = true
            cloud.local.type = directory
            cloud.local.bucket = store/local
            cloud.mem.type = memory
            cloud.red.type = redis
            cloud.red.endpoint = redis://127.0.0.1:19004
            cloud.red.role = metadata-only
            cloud.az.type = azure
            cloud.az.bucket = box
            cloud.az.endpoint = http://127.0.0.1:19003/devstoreaccount1
            """
                .formatted(SigningKeys.encodePublic(bob.getPublic())));
    StoreConfig c = StoreConfig.load(file);

    assertThat(c.faultsTolerated()).isEqualTo(1);
    assertThat(c.mode()).isEqualTo(ProtocolMode.FAST);
    assertThat(c.writer()).get().extracting(KeyFiles.WriterKey::writerId).isEqualTo("alice");
    assertThat(c.writer().get().keys().getPublic()).isEqualTo(alice.getPublic());
    assertThat(c.trustedWriters()).containsOnlyKeys("bob", "carol");
    assertThat(c.trustedWriters().get("bob")).isEqualTo(bob.getPublic());
    assertThat(c.trustedWriters().get("carol")).isEqualTo(bob.getPublic());
    assertThat(c.operationTimeout()).contains(Duration.ofSeconds(90));
    assertThat(c.maxValueBytes()).hasValue(16L * 1024 * 1024);
    assertThat(c.dataCloudsInOrderAdded()).isTrue();
    assertThat(c.encryptValues()).isTrue();
    assertThat(c.erasureCodingK()).isEqualTo(2);
    assertThat(c.partSize()).hasValue(4L * 1024 * 1024);
    assertThat(c.partsInFlight()).hasValue(8);
    assertThat(c.speculativeReadLimit()).hasValue(1024L * 1024);

    assertThat(c.clouds())
        .extracting(CloudConfig::id)
        .containsExactly("s3", "local", "mem", "red", "az");
    CloudConfig s3 = c.clouds().get(0);
    assertThat(s3.spec().type()).isEqualTo("s3");
    assertThat(s3.spec().endpoint()).isEqualTo("http://127.0.0.1:19000");
    assertThat(s3.spec().bucket()).isEqualTo("data");
    assertThat(s3.spec().region()).isEqualTo("eu-west-1");
    assertThat(s3.spec().credentialsRef()).isEqualTo("env:MY_S3_KEYS");
    assertThat(s3.spec().options()).isEqualTo(Map.of("pathStyle", "true"));
    assertThat(s3.expectedRtt()).contains(Duration.ofMillis(80));
    assertThat(s3.role()).isEqualTo(CloudRole.DATA_AND_METADATA);
    assertThat(s3.line()).isEqualTo(18);
    // A directory is relative to the configuration file, not to the working directory.
    assertThat(c.clouds().get(1).spec().bucket()).isEqualTo(dir.resolve("store/local").toString());
    assertThat(c.clouds().get(3).role()).isEqualTo(CloudRole.METADATA_ONLY);
    assertThat(c.clouds().get(2).expectedRtt()).isEmpty();
  }

  @Test
  void defaultsWhenOptionalKeysAreLeftOut() throws IOException {
    StoreConfig c = StoreConfig.load(write(FOUR_CLOUDS));
    assertThat(c.faultsTolerated()).isEqualTo(1);
    assertThat(c.mode()).isEqualTo(ProtocolMode.PAPER);
    assertThat(c.writer()).isEmpty();
    assertThat(c.trustedWriters()).isEmpty();
    assertThat(c.operationTimeout()).isEmpty();
    assertThat(c.maxValueBytes()).isEmpty();
    assertThat(c.encryptValues()).isFalse();
    assertThat(c.erasureCodingK()).isZero();
    assertThat(c.speculativeReadLimit()).isEmpty();
    assertThat(c.clouds()).allMatch(cc -> cc.role() == CloudRole.DATA_AND_METADATA);
  }

  @Test
  void layoutAndObjective() throws IOException {
    StoreConfig c =
        StoreConfig.load(write("mode = fast\nlayout = auto\nobjective = cost\n" + FOUR_CLOUDS));
    assertThat(c.layout()).isEqualTo(io.rafestore.Layout.AUTO);
    assertThat(c.objective()).contains(io.rafestore.Objective.cost());
    StoreConfig w = StoreConfig.load(write("objective = weighted:0.00001\n" + FOUR_CLOUDS));
    assertThat(w.objective()).contains(io.rafestore.Objective.weighted(1e-5));
    assertThat(w.layout()).isEqualTo(io.rafestore.Layout.FIXED);
    StoreConfig none = StoreConfig.load(write(FOUR_CLOUDS));
    assertThat(none.objective()).isEmpty();
  }

  /**
   * The cost model: each cloud's prices default to its driver type's table (directory: free), a
   * named table replaces them, and each number can be set alone; an opened store bills with them.
   */
  @Test
  void pricesDefaultToTheDriverTypesTableAndEachNumberCanBeSet() throws Exception {
    StoreConfig d = StoreConfig.load(write(FOUR_CLOUDS));
    assertThat(d.clouds()).allMatch(cc -> cc.pricing().equals(io.rafestore.Pricing.FREE));
    StoreConfig c =
        StoreConfig.load(
            write(
                "writer.id = alice\nwriter.key = alice.key\n"
                    + FOUR_CLOUDS
                    + "cloud.a.price = s3\n"
                    + "cloud.b.price = azure\n"
                    + "cloud.b.price.putsPer1000 = 0.01\n"
                    + "cloud.c.price.egressPerGB = 0.05\n"
                    + "cloud.c.price.storagePerGBMonth = 0.004\n"
                    + "cloud.d.price = gcs\n"));
    assertThat(c.clouds().get(0).pricing()).isEqualTo(io.rafestore.Pricing.S3_STANDARD);
    assertThat(c.clouds().get(1).pricing())
        .isEqualTo(
            new io.rafestore.Pricing(
                0.01,
                io.rafestore.Pricing.AZURE_BLOB_HOT.getsPer1000(),
                io.rafestore.Pricing.AZURE_BLOB_HOT.listsPer1000(),
                io.rafestore.Pricing.AZURE_BLOB_HOT.egressPerGB(),
                io.rafestore.Pricing.AZURE_BLOB_HOT.storagePerGBMonth()));
    assertThat(c.clouds().get(2).pricing())
        .isEqualTo(new io.rafestore.Pricing(0, 0, 0, 0.05, 0.004));
    assertThat(c.clouds().get(3).pricing()).isEqualTo(io.rafestore.Pricing.GCS_STANDARD);
    try (RafeStore store = c.open()) {
      store.blocking().write("k", "v1".getBytes(StandardCharsets.UTF_8));
      Map<String, io.rafestore.CloudStats> stats = store.stats();
      io.rafestore.CloudStats a = stats.get("a");
      assertThat(a.puts()).isPositive();
      assertThat(a.requestDollars())
          .isCloseTo(
              a.puts() * 0.005 / 1000 + a.gets() * 0.0004 / 1000 + a.lists() * 0.005 / 1000,
              org.assertj.core.data.Offset.offset(1e-12));
      assertThat(stats.get("c").requestDollars()).isZero();
      assertThat(stats.get("d").dollars()).isPositive();
    }
  }

  /** How readM finds a key's writers: left out (the builder's AUTO), or one of the three. */
  @Test
  void writerDiscoveryIsOneOfTheThreeAndReachesTheStore() throws Exception {
    assertThat(StoreConfig.load(write(FOUR_CLOUDS)).writerDiscovery()).isEmpty();
    assertThat(
            StoreConfig.load(write("writerDiscovery = per-writer\n" + FOUR_CLOUDS))
                .writerDiscovery())
        .contains(io.rafestore.WriterDiscovery.PER_WRITER);
    StoreConfig c =
        StoreConfig.load(
            write(
                "writerDiscovery = LISTING\nwriter.id = alice\nwriter.key = alice.key\n"
                    + FOUR_CLOUDS));
    assertThat(c.writerDiscovery()).contains(io.rafestore.WriterDiscovery.LISTING);
    try (RafeStore store = c.open()) {
      store.blocking().write("k", "v1".getBytes(StandardCharsets.UTF_8));
      long before = store.stats().values().stream().mapToLong(io.rafestore.CloudStats::lists).sum();
      assertThat(store.blocking().read("k").utf8()).isEqualTo("v1");
      // A listing read lists the key's logs on the clouds (a PER_WRITER read would not).
      assertThat(store.stats().values().stream().mapToLong(io.rafestore.CloudStats::lists).sum())
          .isGreaterThan(before);
    }
    ConfigException e = fails("writerDiscovery = sometimes\n" + FOUR_CLOUDS);
    assertThat(e.line()).isEqualTo(1);
    assertThat(e.field()).contains("writerDiscovery");
    assertThat(e.getMessage()).contains("AUTO").contains("PER_WRITER").contains("LISTING");
  }

  @Test
  void speculativeReadLimitZeroTurnsAnticipationOff() throws IOException {
    StoreConfig c = StoreConfig.load(write("speculativeReadLimit = 0\n" + FOUR_CLOUDS));
    assertThat(c.speculativeReadLimit()).hasValue(0);
  }

  @Test
  void inlineSettingsAreSizesAndZeroTurnsInlineValuesOff() throws IOException {
    StoreConfig c =
        StoreConfig.load(write("inlineThreshold = 0\ninlineLogBudget = 64KiB\n" + FOUR_CLOUDS));
    assertThat(c.inlineThreshold()).hasValue(0);
    assertThat(c.inlineLogBudget()).hasValue(64L * 1024);
    StoreConfig d = StoreConfig.load(write(FOUR_CLOUDS));
    assertThat(d.inlineThreshold()).isEmpty();
    assertThat(d.inlineLogBudget()).isEmpty();
  }

  @Test
  void writeBackSettingsMakeAJournalRelativeToTheFile() throws Exception {
    StoreConfig c =
        StoreConfig.load(
            write(
                "writer.id = alice\nwriter.key = alice.key\nwriteBack.journal = wb\n"
                    + "writeBack.maxBytes = 1MiB\nwriteBack.maxEntries = 10\n"
                    + "writeBack.whenFull = fail\n"
                    + FOUR_CLOUDS));
    io.rafestore.WriteBack wb = c.writeBack().orElseThrow();
    assertThat(wb.directory()).isEqualTo(dir.resolve("wb"));
    assertThat(wb.maxBytes()).isEqualTo(1L << 20);
    assertThat(wb.maxEntries()).isEqualTo(10);
    assertThat(wb.whenFull()).isEqualTo(io.rafestore.WriteBack.WhenFull.FAIL);
    try (RafeStore store = c.open()) {
      store.blocking().writeBack("k", "v".getBytes(StandardCharsets.UTF_8));
      store.blocking().flush();
      assertThat(store.blocking().read("k").utf8()).isEqualTo("v");
    }
    assertThat(StoreConfig.load(write(FOUR_CLOUDS)).writeBack()).isEmpty();
  }

  /**
   * {@code groupCommit} reaches the client: ten write-back writes of one key handed over at once
   * are uploaded in one round per write with {@code false} (at least n - f metadata puts each), and
   * in a few shared rounds by default (the first alone, the rest, journaled meanwhile, together).
   */
  @Test
  void groupCommitIsOnByDefaultAndFalseGivesOneRoundPerWrite() throws Exception {
    String writer = "writer.id = alice\nwriter.key = alice.key\nwriteBack.journal = wb\n";
    StoreConfig on = StoreConfig.load(write(writer + FOUR_CLOUDS));
    assertThat(on.groupCommit()).isTrue();
    StoreConfig off = StoreConfig.load(write("groupCommit = false\n" + writer + FOUR_CLOUDS));
    assertThat(off.groupCommit()).isFalse();
    assertThat(metadataPutsOfTenWriteBacks(off))
        .as("one round per write")
        .isGreaterThanOrEqualTo(30);
    assertThat(metadataPutsOfTenWriteBacks(on)).as("shared rounds").isLessThanOrEqualTo(20);
    ConfigException bad = fails("groupCommit = sometimes\n" + FOUR_CLOUDS);
    assertThat(bad.line()).isEqualTo(1);
    assertThat(bad.getMessage()).contains("groupCommit").contains("true, false");
  }

  private static long metadataPutsOfTenWriteBacks(StoreConfig c) throws Exception {
    try (RafeStore store = c.open()) {
      String key = "k" + System.nanoTime();
      List<java.util.concurrent.CompletableFuture<?>> acks = new java.util.ArrayList<>();
      for (int i = 0; i < 10; i++) {
        acks.add(store.writeBack(key, ("v" + i).getBytes(StandardCharsets.UTF_8)));
      }
      for (java.util.concurrent.CompletableFuture<?> a : acks) {
        a.get(20, java.util.concurrent.TimeUnit.SECONDS);
      }
      store.blocking().flush();
      assertThat(store.blocking().read(key).utf8()).isEqualTo("v9");
      return store.stats().values().stream().mapToLong(io.rafestore.CloudStats::puts).sum();
    }
  }

  @Test
  void writeBackSettingsAreCheckedWithTheirLine() throws IOException {
    ConfigException noJournal = fails("writeBack.maxEntries = 5\n" + FOUR_CLOUDS);
    assertThat(noJournal.line()).isEqualTo(1);
    assertThat(noJournal.getMessage()).contains("needs writeBack.journal");
    ConfigException noWriter = fails(FOUR_CLOUDS + "writeBack.journal = wb\n");
    assertThat(noWriter.line()).isEqualTo(9);
    assertThat(noWriter.getMessage()).contains("needs a writer");
    ConfigException tooSmall =
        fails(
            "writer.id = alice\nwriter.key = alice.key\nwriteBack.journal = wb\n"
                + "writeBack.maxBytes = 1KiB\n"
                + FOUR_CLOUDS);
    assertThat(tooSmall.line()).isEqualTo(4);
    ConfigException policy =
        fails(
            "writer.id = alice\nwriter.key = alice.key\nwriteBack.journal = wb\n"
                + "writeBack.whenFull = drop\n"
                + FOUR_CLOUDS);
    assertThat(policy.getMessage()).contains("WAIT, FAIL");
  }

  @Test
  void opensAStoreThatWritesAndReads() throws Exception {
    StoreConfig c =
        StoreConfig.load(write("writer.id = alice\nwriter.key = alice.key\n" + FOUR_CLOUDS));
    try (RafeStore store = c.open()) {
      store.blocking().write("k", "v1".getBytes(StandardCharsets.UTF_8));
    }
    // The same clouds with encrypted, erasure-coded values (k = 2 + f = 1 fragments on 3 of 4).
    Files.writeString(
        dir.resolve("coded.properties"),
        "encryptValues = true\nerasureCoding = 2\nwriter.id = alice\nwriter.key = alice.key\n"
            + FOUR_CLOUDS);
    try (RafeStore store = StoreConfig.load(dir.resolve("coded.properties")).open()) {
      store.blocking().write("coded", "v2".getBytes(StandardCharsets.UTF_8));
      assertThat(store.blocking().read("coded").utf8()).isEqualTo("v2");
    }
    // A second client from the same file sees what the first wrote: the clouds are on disk.
    try (RafeStore store = StoreConfig.load(dir.resolve("rafestore.properties")).open()) {
      assertThat(store.blocking().read("k").utf8()).isEqualTo("v1");
      assertThat(store.faultsTolerated()).isEqualTo(1);
    }
    assertThat(dir.resolve("clouds/a")).isDirectory();
  }

  @Test
  void openNamesTheLineOfACredentialsVariableThatIsNotSet() throws IOException {
    String unset = "RAFESTORE_TEST_UNSET_" + Long.toHexString(System.nanoTime());
    StoreConfig c =
        StoreConfig.load(
            write(
                FOUR_CLOUDS
                    + "cloud.r.type = redis\ncloud.r.endpoint = redis://127.0.0.1:1\n"
                    + "cloud.r.credentials = env:"
                    + unset
                    + "\n"));
    ConfigException e = assertThrows(ConfigException.class, c::open);
    assertThat(e.line()).isEqualTo(11);
    assertThat(e.field()).contains("cloud.r.credentials");
    assertThat(e.getMessage()).contains(unset).contains("is not set");
  }

  @Test
  void s3TakesAnAwsProfileAsItsCredentials() throws IOException {
    StoreConfig c =
        StoreConfig.load(
            write(
                FOUR_CLOUDS
                    + "cloud.e.type = s3\ncloud.e.bucket = x\ncloud.e.credentials = profile:dev\n"
                    + "writer.id = alice\nwriter.key = alice.key\n"));
    assertThat(c.clouds().get(4).spec().credentialsRef()).isEqualTo("profile:dev");
    // No environment variable to check: the driver reads the profile (here a stand-in).
    try (RafeStore store = c.open()) {
      assertThat(store.faultsTolerated()).isEqualTo(1);
    }
  }

  @Test
  void anAwsProfileIsRefusedForOtherTypes() throws IOException {
    ConfigException e =
        fails(
            FOUR_CLOUDS
                + "cloud.e.type = azure\ncloud.e.bucket = box\n"
                + "cloud.e.credentials = profile:dev\n");
    assertThat(e.line()).isEqualTo(11);
    assertThat(e.field()).contains("cloud.e.credentials");
    assertThat(e.getMessage()).contains("only type s3 reads").contains("env:NAME");
  }

  @Test
  void openNamesTheLineOfAProfileOrRegionTheDriverRejects() throws IOException {
    StoreConfig profile =
        StoreConfig.load(
            write(
                FOUR_CLOUDS
                    + "cloud.e.type = s3\ncloud.e.bucket = x\ncloud.e.credentials = profile:missing\n"));
    ConfigException e = assertThrows(ConfigException.class, profile::open);
    assertThat(e.line()).isEqualTo(11);
    assertThat(e.field()).contains("cloud.e.credentials");
    assertThat(e.getMessage()).contains("profile missing is not in the shared AWS files");
    StoreConfig region =
        StoreConfig.load(
            write(
                FOUR_CLOUDS + "cloud.e.type = s3\ncloud.e.region = nowhere\ncloud.e.bucket = x\n"));
    e = assertThrows(ConfigException.class, region::open);
    assertThat(e.line()).isEqualTo(10);
    assertThat(e.field()).contains("cloud.e.region");
  }

  @Test
  void rejectsAPrivateKeyFileOthersCanRead() throws IOException {
    Path key = dir.resolve("alice.key");
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
    ConfigException e = fails(FOUR_CLOUDS + "writer.id = alice\nwriter.key = alice.key\n");
    assertThat(e.line()).isEqualTo(10);
    assertThat(e.field()).contains("writer.key");
    assertThat(e.getMessage()).contains("chmod 600");
  }

  @Test
  void readsFairnessAndTenants() throws IOException {
    StoreConfig c =
        StoreConfig.load(
            write(
                FOUR_CLOUDS
                    + """
                    fairness = on
                    fairness.cloudConcurrency = 8
                    fairness.cloudBytesInFlight = 32MiB
                    fairness.tenantBytesInFlight = 4MiB
                    fairness.costUnitBytes = 16KiB
                    fairness.largeRequestBytes = 1MiB
                    fairness.largeRequestShare = 0.75
                    tenant.web.weight = 2
                    tenant.batch.jobs.weight = 0.5
                    tenant.batch.jobs.reservation = 10
                    tenant.batch.jobs.limit = 200
                    """));
    assertThat(c.fairness())
        .isEqualTo(
            io.rafestore.Fairness.on()
                .withCloudConcurrency(8)
                .withCloudBytesInFlight(32L << 20)
                .withTenantBytesInFlight(4L << 20)
                .withCostUnitBytes(16L << 10)
                .withLargeRequests(1L << 20, 0.75));
    assertThat(c.fairness().largeRequestPlaces()).isEqualTo(6);
    assertThat(c.tenants())
        .containsEntry("web", io.rafestore.TenantShare.weight(2))
        .containsEntry("batch.jobs", new io.rafestore.TenantShare(0.5, 10, 200));
    assertThat(StoreConfig.load(write(FOUR_CLOUDS)).fairness())
        .isEqualTo(io.rafestore.Fairness.off());
  }

  @Test
  void knowsTheBuiltInDriverTypes() {
    assertThat(StoreConfig.knownDriverTypes()).contains("memory", "directory");
  }

  /** One bad file per kind of error: the text, the field and line it must name, and a hint. */
  static Stream<Arguments> badFiles() {
    String pub = SigningKeys.encodePublic(SigningKeys.generate().getPublic());
    return Stream.of(
        Arguments.of(
            "bad fairness", "fairness = maybe\n" + FOUR_CLOUDS, "fairness", 1, "allowed: on, off"),
        Arguments.of(
            "fairness tunable without fairness",
            "fairness.cloudConcurrency = 8\n" + FOUR_CLOUDS,
            "fairness.cloudConcurrency",
            1,
            "needs fairness = on"),
        Arguments.of(
            "fairness concurrency out of range",
            "fairness = on\nfairness.cloudConcurrency = 0\n" + FOUR_CLOUDS,
            "fairness.cloudConcurrency",
            2,
            "between 1 and 65536"),
        Arguments.of(
            "fairness large share out of range",
            "fairness = on\nfairness.largeRequestShare = 1.5\n" + FOUR_CLOUDS,
            "fairness.largeRequestShare",
            2,
            "not a share in (0, 1]"),
        Arguments.of(
            "tenant weight zero",
            FOUR_CLOUDS + "tenant.web.weight = 0\n",
            "tenant.web.weight",
            9,
            "must be > 0"),
        Arguments.of(
            "tenant weight not a number",
            FOUR_CLOUDS + "tenant.web.weight = lots\n",
            "tenant.web.weight",
            9,
            "not a number"),
        Arguments.of(
            "unknown tenant field",
            FOUR_CLOUDS + "tenant.web.wieght = 2\n",
            "tenant.web.wieght",
            9,
            "unknown tenant field 'wieght'"),
        Arguments.of(
            "tenant limit below its reservation",
            FOUR_CLOUDS + "tenant.web.reservation = 100\ntenant.web.limit = 10\n",
            "tenant.web.limit",
            10,
            "below its reservation"),
        Arguments.of(
            "bad tenant id",
            FOUR_CLOUDS + "tenant.weight = 2\n",
            "tenant.weight",
            9,
            "tenant.<id>.<field>"),
        Arguments.of("unknown key", "fauts = 1\n" + FOUR_CLOUDS, "fauts", 1, "unknown key"),
        Arguments.of(
            "unknown cloud field",
            FOUR_CLOUDS + "cloud.a.buckt = x\n",
            "cloud.a.buckt",
            9,
            "unknown cloud field 'buckt'"),
        Arguments.of(
            "cloud key without field",
            FOUR_CLOUDS + "cloud.e = x\n",
            "cloud.e",
            9,
            "cloud.<id>.<field>"),
        Arguments.of(
            "missing type",
            FOUR_CLOUDS + "cloud.e.bucket = clouds/e\n",
            "cloud.e.type",
            9,
            "missing"),
        Arguments.of(
            "missing field the type requires",
            FOUR_CLOUDS + "cloud.e.type = s3\ncloud.e.region = x\n",
            "cloud.e.bucket",
            9,
            "required for type s3"),
        Arguments.of(
            "bad mode",
            "mode = quick\n" + FOUR_CLOUDS,
            "mode",
            1,
            "allowed: PAPER, FAST, DEPSKY_A, DEPSKY_CA"),
        Arguments.of(
            "bad role",
            FOUR_CLOUDS + "cloud.a.role = data\n",
            "cloud.a.role",
            9,
            "allowed: DATA_AND_METADATA, METADATA_ONLY"),
        Arguments.of("f not a number", "f = one\n" + FOUR_CLOUDS, "f", 1, "not a whole number"),
        Arguments.of("f out of range", "f = 0\n" + FOUR_CLOUDS, "f", 1, "between 1 and 85"),
        Arguments.of(
            "key set twice",
            FOUR_CLOUDS + "cloud.a.type = memory\n",
            "cloud.a.type",
            9,
            "set twice (first on line 1)"),
        Arguments.of(
            "two clouds on one store",
            FOUR_CLOUDS.replace("clouds/d", "clouds/a"),
            "cloud.d.bucket",
            8,
            "clouds a and d are the same store"),
        Arguments.of(
            "unknown driver type",
            FOUR_CLOUDS + "cloud.e.type = dropbox\n",
            "cloud.e.type",
            9,
            "unknown driver type 'dropbox'; known types: "),
        Arguments.of(
            "too few clouds for f",
            "f = 2\n" + FOUR_CLOUDS,
            "f",
            1,
            "needs at least 3f+1 = 7 clouds"),
        Arguments.of(
            "too few data clouds",
            "f = 1\n"
                + FOUR_CLOUDS
                + "cloud.c.role = METADATA_ONLY\ncloud.d.role = METADATA_ONLY\n",
            "f",
            1,
            "needs at least 2f+1 = 3 clouds with role DATA_AND_METADATA"),
        Arguments.of("no clouds", "f = 1\n", "cloud.<id>.type", 0, "no clouds are defined"),
        Arguments.of(
            "bad rtt", FOUR_CLOUDS + "cloud.a.rtt = fast\n", "cloud.a.rtt", 9, "not a duration"),
        Arguments.of(
            "rtt without unit",
            FOUR_CLOUDS + "cloud.a.rtt = 80\n",
            "cloud.a.rtt",
            9,
            "with a unit"),
        Arguments.of(
            "bad timeout",
            "operationTimeout = 0s\n" + FOUR_CLOUDS,
            "operationTimeout",
            1,
            "greater than zero"),
        Arguments.of(
            "bad size", "maxValueBytes = 1TB\n" + FOUR_CLOUDS, "maxValueBytes", 1, "not a size"),
        Arguments.of(
            "bad boolean",
            "dataCloudsInOrderAdded = yes\n" + FOUR_CLOUDS,
            "dataCloudsInOrderAdded",
            1,
            "allowed: true, false"),
        Arguments.of(
            "encryption with the plaintext baseline",
            "mode = DEPSKY_A\nencryptValues = true\n" + FOUR_CLOUDS,
            "encryptValues",
            2,
            "DEPSKY_A is the plaintext baseline"),
        Arguments.of(
            "erasure coding with k = 1",
            "erasureCoding = 1\n" + FOUR_CLOUDS,
            "erasureCoding",
            1,
            "k must be >= 2"),
        Arguments.of(
            "erasure coding with too few data clouds",
            "erasureCoding = 4\n" + FOUR_CLOUDS,
            "erasureCoding",
            1,
            "k + f = 5 fragments need as many clouds"),
        Arguments.of(
            "part size too small",
            "partSize = 100\n" + FOUR_CLOUDS,
            "partSize",
            1,
            "between 1KiB and 1GiB"),
        Arguments.of(
            "parts in flight out of range",
            "partsInFlight = 65\n" + FOUR_CLOUDS,
            "partsInFlight",
            1,
            "between 1 and 64"),
        Arguments.of(
            "speculative read limit not a size",
            "speculativeReadLimit = lots\n" + FOUR_CLOUDS,
            "speculativeReadLimit",
            1,
            "is not a size"),
        Arguments.of(
            "objective not latency, cost or a number",
            "objective = fastest\n" + FOUR_CLOUDS,
            "objective",
            1,
            "must be latency, cost or a number"),
        Arguments.of(
            "layout AUTO with erasure coding",
            "layout = auto\nerasureCoding = 2\n" + FOUR_CLOUDS,
            "layout",
            1,
            "fixes it"),
        Arguments.of(
            "inline threshold not a size",
            "inlineThreshold = big\n" + FOUR_CLOUDS,
            "inlineThreshold",
            1,
            "is not a size"),
        Arguments.of("line without =", "f 1\n" + FOUR_CLOUDS, null, 1, "expected 'key = value'"),
        Arguments.of("empty value", "mode =\n" + FOUR_CLOUDS, "mode", 1, "has no value"),
        Arguments.of(
            "bad cloud id",
            FOUR_CLOUDS + "cloud.e$.type = memory\n",
            "cloud.e$.type",
            9,
            "only letters"),
        Arguments.of(
            "writer id without key",
            FOUR_CLOUDS + "writer.id = alice\n",
            "writer.key",
            9,
            "missing"),
        Arguments.of(
            "writer key without id",
            FOUR_CLOUDS + "writer.key = alice.key\n",
            "writer.id",
            9,
            "missing"),
        Arguments.of(
            "missing key file",
            FOUR_CLOUDS + "writer.id = alice\nwriter.key = nobody.key\n",
            "writer.key",
            10,
            "does not exist"),
        Arguments.of(
            "key file of another writer",
            FOUR_CLOUDS + "writer.id = bob\nwriter.key = alice.key\n",
            "writer.key",
            10,
            "is writer alice's, but writer.id (line 9) is bob"),
        Arguments.of(
            "public key file given as private",
            FOUR_CLOUDS + "writer.id = alice\nwriter.key = alice.pub\n",
            "writer.key",
            10,
            "this is a public key file, a private key file is needed here"),
        Arguments.of(
            "trusted key not base64",
            FOUR_CLOUDS + "trusted.carol = base64:not-a-key\n",
            "trusted.carol",
            9,
            "not a Base64 X.509 Ed25519 public key"),
        Arguments.of(
            "trusted key file of another writer",
            FOUR_CLOUDS + "trusted.carol = bob.pub\n",
            "trusted.carol",
            9,
            "is writer bob's, not carol's"),
        Arguments.of(
            "trusted own id with another key",
            FOUR_CLOUDS
                + "writer.id = alice\nwriter.key = alice.key\ntrusted.alice = base64:"
                + pub
                + "\n",
            "trusted.alice",
            11,
            "not the public key of writer.key"),
        Arguments.of(
            "line continuation", "mode = PAPER \\\n" + FOUR_CLOUDS, "mode", 1, "not supported"),
        Arguments.of(
            "unknown price table",
            FOUR_CLOUDS + "cloud.a.price = aws\n",
            "cloud.a.price",
            9,
            "unknown price table 'aws'"),
        Arguments.of(
            "price not a number",
            FOUR_CLOUDS + "cloud.b.price.getsPer1000 = $0.0004\n",
            "cloud.b.price.getsPer1000",
            9,
            "must be a number of US dollars"),
        Arguments.of(
            "negative price",
            FOUR_CLOUDS + "cloud.b.price.egressPerGB = -1\n",
            "cloud.b.price.egressPerGB",
            9,
            "must be a number of US dollars >= 0"),
        Arguments.of(
            "unknown price field",
            FOUR_CLOUDS + "cloud.b.price.puts = 1\n",
            "cloud.b.price.puts",
            9,
            "unknown cloud field 'price.puts'"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badFiles")
  void eachErrorNamesTheFieldAndTheLine(
      String kind, String text, String field, int line, String hint) throws IOException {
    ConfigException e = fails(text);
    String file = dir.resolve("rafestore.properties").toString();
    assertThat(e.source()).isEqualTo(file);
    assertThat(e.line()).as("line").isEqualTo(line);
    if (field == null) {
      assertThat(e.field()).isEmpty();
    } else {
      assertThat(e.field()).as("field").contains(field);
    }
    String location = line > 0 ? file + ":" + line + ": " : file + ": ";
    assertThat(e.getMessage())
        .startsWith(location + (field == null ? "" : field + ": "))
        .contains(hint);
  }

  /** Inline secrets are refused, and the message does not repeat them. */
  static Stream<Arguments> inlineSecrets() {
    return Stream.of(
        Arguments.of("cloud.a.credentials = AKIAXXSECRETXX:abcdefSECRET", "cloud.a.credentials"),
        Arguments.of("cloud.a.credentials = env:MY VAR SECRET", "cloud.a.credentials"),
        Arguments.of("cloud.a.option.password = hunterSECRET", "cloud.a.option.password"),
        Arguments.of("cloud.a.option.sasToken = sv=2020&sig=SECRET", "cloud.a.option.sasToken"),
        Arguments.of("cloud.a.endpoint = redis://user:pwSECRET@127.0.0.1:6379", "cloud.a.endpoint"),
        Arguments.of(
            "cloud.a.endpoint = https://x.blob.core.windows.net/?sv=1&sig=SECRET",
            "cloud.a.endpoint"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("inlineSecrets")
  void refusesInlineSecretsWithoutRepeatingThem(String line, String field) throws IOException {
    ConfigException e = fails(FOUR_CLOUDS + line + "\n");
    assertThat(e.line()).isEqualTo(9);
    assertThat(e.field()).contains(field);
    assertThat(e.getMessage()).contains("env:NAME").doesNotContain("SECRET");
  }

  @Test
  void parseNamesTheGivenSource() {
    assertThatThrownBy(() -> StoreConfig.parse("f = x\n", "inline-config", dir))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("inline-config:1: f: ");
  }

  @Test
  void toStringShowsNoKeyMaterial() throws IOException {
    StoreConfig c =
        StoreConfig.load(write(FOUR_CLOUDS + "writer.id = alice\nwriter.key = alice.key\n"));
    String text = c.toString() + c.writer().get();
    assertThat(text)
        .contains("alice")
        .doesNotContain(SigningKeys.encodePrivate(alice.getPrivate()))
        .doesNotContain(SigningKeys.encodePublic(alice.getPublic()));
    assertThat(List.of(text)).isNotEmpty();
  }
}
