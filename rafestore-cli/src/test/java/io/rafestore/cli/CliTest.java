package io.rafestore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command run in-process through picocli, against four {@code directory} clouds (f = 1) in a
 * temporary directory: results, exit codes, text and JSON output, and error lines.
 */
class CliTest {
  @TempDir Path dir;
  private Path config;

  /** What one run printed and returned. */
  record Run(int code, byte[] stdoutBytes, String stderr) {
    String stdout() {
      return new String(stdoutBytes, StandardCharsets.UTF_8);
    }

    Map<String, Object> json() {
      return MiniJson.object(stdout().strip());
    }
  }

  private Run run(byte[] stdin, Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.newCommandLine(new ByteArrayInputStream(stdin), out, err, env).execute(args);
    return new Run(code, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
  }

  /** Runs with {@code --config} pointing at the test's configuration. */
  private Run rafestore(String... args) {
    return rafestoreIn(new byte[0], args);
  }

  private Run rafestoreIn(byte[] stdin, String... args) {
    String[] all =
        Stream.concat(Stream.of("--config", config.toString()), Stream.of(args))
            .toArray(String[]::new);
    return run(stdin, Map.of(), all);
  }

  private static String clouds() {
    StringBuilder b = new StringBuilder("f = 1\n");
    for (String id : List.of("a", "b", "c", "d")) {
      b.append("cloud.").append(id).append(".type = directory\n");
      b.append("cloud.").append(id).append(".bucket = clouds/").append(id).append('\n');
    }
    return b.toString();
  }

  @BeforeEach
  void setUp() throws IOException {
    Run keygen =
        run(
            new byte[0],
            Map.of(),
            "keygen",
            "--id",
            "alice",
            "--out",
            dir.resolve("alice.key").toString());
    assertThat(keygen.code()).as(keygen.stderr()).isZero();
    config = dir.resolve("rafestore.properties");
    Files.writeString(config, "writer.id = alice\nwriter.key = alice.key\n" + clouds());
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void putThenGetReturnsTheBytes() throws IOException {
    byte[] value = new byte[300_000];
    new Random(7).nextBytes(value);
    Path file = dir.resolve("value.bin");
    Files.write(file, value);

    Run put = rafestore("put", "photos/1", file.toString());
    assertThat(put.code()).as(put.stderr()).isZero();
    assertThat(put.stdout())
        .matches("(?s)put photos/1: version 1@alice\\.[0-9a-f]{16}, 300000 bytes.*");

    Run get = rafestore("get", "photos/1");
    assertThat(get.code()).as(get.stderr()).isZero();
    assertThat(get.stdoutBytes()).isEqualTo(value);

    Path copy = dir.resolve("copy.bin");
    Run toFile = rafestore("get", "photos/1", "-o", copy.toString());
    assertThat(toFile.code()).isZero();
    assertThat(Files.readAllBytes(copy)).isEqualTo(value);
    assertThat(toFile.stdout()).contains("1@alice").contains("written to " + copy);
  }

  @Test
  void putReadsStandardInput() {
    Run put = rafestoreIn(utf8("from stdin"), "put", "k", "-");
    assertThat(put.code()).as(put.stderr()).isZero();
    assertThat(rafestore("get", "k").stdout()).isEqualTo("from stdin");
  }

  @Test
  void historyListsVersionsNewestFirstAndGetReadsAnyOfThem() {
    for (String v : List.of("one", "two", "three")) {
      assertThat(rafestoreIn(utf8(v), "put", "thread", "-").code()).isZero();
    }
    Run history = rafestore("history", "thread");
    assertThat(history.code()).isZero();
    List<String> lines = history.stdout().lines().toList();
    assertThat(lines).hasSize(4);
    assertThat(lines.get(0)).startsWith("VERSION");
    assertThat(lines.get(1)).startsWith("3@alice").contains(" 5 ");
    assertThat(lines.get(3)).startsWith("1@alice").contains(" 3 ");

    Run limited = rafestore("history", "thread", "--limit", "2");
    assertThat(limited.stdout().lines()).hasSize(4).last().asString().contains("more versions");

    assertThat(rafestore("get", "thread", "--version", "2@alice").stdout()).isEqualTo("two");
    assertThat(rafestore("get", "thread").stdout()).isEqualTo("three");
  }

  @Test
  @SuppressWarnings("unchecked")
  void probeReportsEveryCloudTheArrangementAndConditionOne() {
    Run text = rafestore("probe", "--rounds", "3", "--payload", "65536", "--payload-rounds", "1");
    assertThat(text.code()).as(text.stderr()).isZero();
    assertThat(text.stdout())
        .contains("Condition 1")
        .contains("recommended")
        .doesNotContain("Infinity");
    assertThat(text.stdout().lines().filter(l -> l.matches("[abcd] .*"))).hasSize(4);

    Run json = rafestore("--json", "probe", "--rounds", "2", "--payload", "0", "--size", "4096");
    assertThat(json.code()).as(json.stderr()).isZero();
    Map<String, Object> o = (Map<String, Object>) MiniJson.parse(json.stdout());
    List<Object> clouds = (List<Object>) o.get("clouds");
    assertThat(clouds).hasSize(4);
    for (Object c : clouds) {
      Map<String, Object> m = (Map<String, Object>) c;
      assertThat(((Number) m.get("succeeded")).longValue()).isEqualTo(2);
      assertThat((List<Object>) m.get("errors")).isEmpty();
      assertThat(((Number) m.get("rttMedianMs")).longValue()).isNotNegative();
    }
    Map<String, Object> rec = (Map<String, Object>) o.get("recommended");
    // f = 1: two clouds receive each value first.
    assertThat((List<Object>) rec.get("writeDo")).hasSize(2);
    Map<String, Object> cond = (Map<String, Object>) o.get("conditionForSize");
    assertThat(((Number) cond.get("valueSize")).longValue()).isEqualTo(4096);
    assertThat(cond).containsKeys("holds", "lCloud", "hCloud", "hhCloud");
    // Probe objects are cleaned up: nothing of them is left to list.
    assertThat(rafestore("history", "probe").stdout()).contains("no versions");

    Run bad = rafestore("probe", "--rounds", "0");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.stderr()).contains("rttRounds");
  }

  @Test
  void benchRunsThePaperHarnessWithItsOwnOptions() throws IOException {
    Run help = run(new byte[0], Map.of(), "bench", "--help");
    assertThat(help.code()).as(help.stderr()).isZero();
    assertThat(help.stdout()).contains("--quick").contains("--configs");

    Path out = dir.resolve("bench-out");
    Run tiny =
        run(
            new byte[0],
            Map.of(),
            "bench",
            "--configs",
            "2",
            "--protocols",
            "PAPER,DEPSKY_A",
            "--sizes",
            "1K",
            "--ops",
            "2",
            "--time-scale",
            "0.02",
            "--no-progress",
            "--out",
            out.toString());
    assertThat(tiny.code()).as(tiny.stderr()).isZero();
    assertThat(tiny.stdout()).contains("PAPER").contains("DEPSKY_A");
    try (var files = java.nio.file.Files.list(out)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .anyMatch(n -> n.endsWith(".csv"))
          .anyMatch(n -> n.endsWith(".md"));
    }

    Run bad = run(new byte[0], Map.of(), "bench", "--ops", "zero");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.stderr()).contains("--ops");
  }

  @Test
  @SuppressWarnings("unchecked")
  void verifyFindsALostCloudAndRepairMakesItCleanAgain() throws IOException {
    dataObjectsOnly();
    for (String v : List.of("one", "two", "three")) {
      assertThat(rafestoreIn(utf8(v), "put", "thread", "-").code()).isZero();
    }
    Run clean = rafestore("verify", "thread");
    assertThat(clean.code()).as(clean.stdout() + clean.stderr()).isZero();
    assertThat(clean.stdout())
        .contains("thread: clean (3 versions on 4 clouds), survives 1 more fault");

    // Cloud "a" loses everything it stored (a disk replaced, a bucket emptied).
    Path lost = dir.resolve("clouds/a");
    try (var walk = Files.walk(lost)) {
      walk.sorted(java.util.Comparator.reverseOrder())
          .filter(p -> !p.equals(lost))
          .forEach(p -> p.toFile().delete());
    }
    Run broken = rafestore("verify");
    assertThat(broken.code()).isEqualTo(ExitCodes.INTEGRITY);
    assertThat(broken.stdout()).contains("thread: ").contains("METADATA_MISSING");

    Run json = rafestore("--json", "verify", "thread");
    assertThat(json.code()).isEqualTo(ExitCodes.INTEGRITY);
    Map<String, Object> o = (Map<String, Object>) MiniJson.parse(json.stdout());
    assertThat(o.get("clean")).isEqualTo(false);
    Map<String, Object> first = (Map<String, Object>) ((List<Object>) o.get("keys")).get(0);
    assertThat((List<Object>) first.get("findings"))
        .anyMatch(f -> "a".equals(((Map<String, Object>) f).get("cloud")));
    assertThat((List<Object>) first.get("margins")).hasSize(3);
    assertThat(first).containsKey("faultsSurvivable").containsKey("oneFaultFromLoss");

    Run repaired = rafestore("verify", "--repair", "thread");
    assertThat(repaired.code()).as(repaired.stdout() + repaired.stderr()).isZero();
    assertThat(repaired.stdout()).contains("repaired").contains("clean");
    assertThat(rafestore("verify", "thread").code()).isZero();
  }

  /**
   * Deletes every file under {@code clouds/<cloud>/<sub>} (the cloud loses those objects; a
   * directory cloud keeps object {@code m/...} under {@code objects/m+/}).
   */
  private void lose(String cloud, String sub) throws IOException {
    Path lost = dir.resolve("clouds").resolve(cloud).resolve(sub);
    if (!Files.exists(lost)) {
      return;
    }
    try (var walk = Files.walk(lost)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  void verifyFlagsAValueOneFaultFromLoss() throws IOException {
    dataObjectsOnly();
    assertThat(rafestoreIn(utf8("precious"), "put", "gem", "-").code()).isZero();
    // Every holder of the value but one loses its copy.
    List<String> holders = new java.util.ArrayList<>();
    for (String c : List.of("a", "b", "c", "d")) {
      Path d = dir.resolve("clouds").resolve(c).resolve("objects/d+");
      if (Files.exists(d)) {
        try (var files = Files.walk(d)) {
          if (files.anyMatch(Files::isRegularFile)) {
            holders.add(c);
          }
        }
      }
    }
    assertThat(holders).hasSizeGreaterThanOrEqualTo(2);
    for (String c : holders.subList(1, holders.size())) {
      lose(c, "objects/d+");
    }
    Run risky = rafestore("verify", "gem");
    assertThat(risky.code()).isEqualTo(ExitCodes.INTEGRITY);
    assertThat(risky.stdout())
        .contains("problem(s), survives 0 more faults (ONE FAULT FROM LOSS)")
        .contains("survives 0 more faults [the value: 1 valid copy] ONE FAULT FROM LOSS");
  }

  /**
   * Values this small would travel inside the signed logs (inline values); the tests that lose a
   * data cloud's objects need them stored as data objects.
   */
  private void dataObjectsOnly() throws IOException {
    Files.writeString(config, "inlineThreshold = 0\n", StandardOpenOption.APPEND);
  }

  @Test
  @SuppressWarnings("unchecked")
  void scrubFindsAndRepairsWithinItsBudgetAndKeepsItsStateUnderXdgStateHome() throws IOException {
    for (String k : List.of("k1", "k2", "k3")) {
      assertThat(rafestoreIn(utf8("value of " + k), "put", k, "-").code()).isZero();
    }
    lose("a", "objects/m+");
    Path state = dir.resolve("scrub.state");
    // A budget that does not slow the test down (the default's $0.10 an hour at list prices would
    // make each pass here take seconds).
    String fast = "--requests-per-hour=3600000";
    String rich = "--dollars-per-hour=1000";

    Run dry = rafestore("scrub", "--dry-run", fast, rich, "--state", state.toString());
    assertThat(dry.code()).as(dry.stdout() + dry.stderr()).isEqualTo(ExitCodes.INTEGRITY);
    assertThat(dry.stdout())
        .contains("k1: found METADATA_MISSING alice")
        .contains("on a")
        .contains("scrub: pass 1 over every key ended")
        .contains("scrub done, pass 2 (0 keys, after the start), 3 keys in all")
        .contains("state kept in " + state);
    assertThat(dry.stdout()).doesNotContain(": repaired");
    assertThat(Files.exists(state)).isTrue();

    Run fix = rafestore("--json", "scrub", fast, rich, "--state", state.toString());
    assertThat(fix.code()).as(fix.stdout() + fix.stderr()).isZero();
    Map<String, Object> o = fix.json();
    assertThat(o).containsEntry("state", "DONE").containsEntry("clean", true);
    assertThat(((Number) o.get("keysChecked")).longValue()).isEqualTo(6);
    assertThat(((Number) o.get("repaired")).longValue()).isEqualTo(3);
    assertThat(((Number) o.get("requests")).longValue()).isPositive();
    assertThat((List<Object>) o.get("events"))
        .anyMatch(e -> "REPAIRED".equals(((Map<String, Object>) e).get("kind")));
    assertThat(rafestore("verify").code()).isZero();

    // Without --state, under $XDG_STATE_HOME/rafestore/, one file per configuration file.
    Path xdg = dir.resolve("xdg-state");
    Run byDefault =
        run(
            new byte[0],
            Map.of("XDG_STATE_HOME", xdg.toString()),
            "--config",
            config.toString(),
            "scrub",
            fast,
            rich);
    assertThat(byDefault.code()).as(byDefault.stdout() + byDefault.stderr()).isZero();
    try (var files = Files.list(xdg.resolve("rafestore"))) {
      assertThat(files.map(p -> p.getFileName().toString()).toList())
          .singleElement()
          .satisfies(n -> assertThat(n).matches("scrub-[0-9a-f]{12}\\.state"));
    }
    Run again =
        run(
            new byte[0],
            Map.of("HOME", dir.resolve("home").toString()),
            "--config",
            config.toString(),
            "scrub",
            "--restart",
            fast,
            rich);
    assertThat(again.code()).isZero();
    assertThat(again.stdout()).contains(dir.resolve("home/.local/state/rafestore").toString());

    Run bad = rafestore("scrub", "--egress-per-hour", "lots");
    assertThat(bad.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(bad.stderr()).contains("--egress-per-hour");
    Run zero = rafestore("scrub", "--requests-per-hour", "0");
    assertThat(zero.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(zero.stderr()).contains("requestsPerHour");
  }

  @Test
  void gcKeepsTheNewestVersionsAndShrinksTheHistory() {
    for (int i = 1; i <= 5; i++) {
      assertThat(rafestoreIn(utf8("v" + i), "put", "feed", "-").code()).isZero();
    }
    Run gc = rafestore("gc", "feed", "--keep-last", "2");
    assertThat(gc.code()).as(gc.stderr()).isZero();
    assertThat(gc.stdout()).startsWith("feed: collected 3 versions");
    assertThat(rafestore("history", "feed").stdout().lines()).hasSize(3);
    assertThat(rafestore("get", "feed").stdout()).isEqualTo("v5");
    assertThat(rafestore("get", "feed", "--version", "1@alice").code())
        .isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(rafestore("verify", "feed").code()).isZero();

    Run none = rafestore("gc", "feed");
    assertThat(none.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(none.stderr()).contains("--keep-last");
    Run badDate = rafestore("gc", "feed", "--keep-newer-than", "yesterday");
    assertThat(badDate.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(badDate.stderr()).contains("ISO-8601");
  }

  @Test
  void rmHidesTheKey() {
    rafestoreIn(utf8("secret plans"), "put", "k", "-");
    Run rm = rafestore("rm", "k");
    assertThat(rm.code()).as(rm.stderr()).isZero();
    assertThat(rm.stdout()).isEqualTo("rm k: deleted\n");

    Run get = rafestore("get", "k");
    assertThat(get.code()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(get.stdoutBytes()).isEmpty();
    assertThat(get.stderr()).startsWith("rafestore get: ").contains("not found");
    assertThat(rafestore("history", "k").stdout()).isEqualTo("k: no versions\n");
  }

  @Test
  void keygenWritesAKeyAnotherClientTrusts() throws IOException {
    Run keygen =
        run(
            new byte[0],
            Map.of(),
            "keygen",
            "--id",
            "bob",
            "--out",
            dir.resolve("bob.key").toString());
    assertThat(keygen.code()).isZero();
    assertThat(keygen.stdout()).contains("writer.id = bob").contains("trusted.bob = bob.pub");
    assertThat(Files.getPosixFilePermissions(dir.resolve("bob.key")))
        .isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));

    // Bob writes with his new key...
    Path bobConfig = dir.resolve("bob.properties");
    Files.writeString(bobConfig, "writer.id = bob\nwriter.key = bob.key\n" + clouds());
    Run put =
        run(utf8("from bob"), Map.of(), "--config", bobConfig.toString(), "put", "shared", "-");
    assertThat(put.code()).as(put.stderr()).isZero();

    // ...Alice does not see it until she trusts his public key, then she does.
    assertThat(rafestore("get", "shared").code()).isEqualTo(ExitCodes.NOT_FOUND);
    Files.writeString(config, "trusted.bob = bob.pub\n", java.nio.file.StandardOpenOption.APPEND);
    Run get = rafestore("get", "shared");
    assertThat(get.code()).as(get.stderr()).isZero();
    assertThat(get.stdout()).isEqualTo("from bob");

    Run again =
        run(
            new byte[0],
            Map.of(),
            "keygen",
            "--id",
            "bob",
            "--out",
            dir.resolve("bob.key").toString());
    assertThat(again.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(again.stderr()).contains("already exists");
  }

  @Test
  void jsonOutputParses() {
    Map<String, Object> put =
        rafestoreIn(utf8("hello\n\"json\""), "--json", "put", "k", "-").json();
    assertThat(put).containsEntry("key", "k").containsEntry("size", 12L);
    // The version: timestamp, writer, and this client's incarnation (16 hex digits).
    assertThat((String) put.get("version")).matches("1@alice\\.[0-9a-f]{16}");
    assertThat(put.get("version")).isEqualTo("1@alice." + put.get("incarnation"));
    // A 12-byte value is written inline (inside the signed log): no data cloud holds it.
    assertThat((List<?>) put.get("dataClouds")).isEmpty();
    assertThat((String) put.get("sha256")).hasSize(64);

    // --json is accepted after the subcommand too.
    Map<String, Object> get = rafestore("get", "k", "--json").json();
    assertThat(Base64.getDecoder().decode((String) get.get("value")))
        .isEqualTo(utf8("hello\n\"json\""));
    assertThat(get).containsEntry("version", put.get("version")).containsKey("servedBy");

    rafestoreIn(utf8("v2"), "put", "k", "-");
    Map<String, Object> history = rafestore("--json", "history", "k").json();
    assertThat(history).containsEntry("more", false);
    List<?> versions = (List<?>) history.get("versions");
    assertThat(versions.stream().map(v -> (String) ((Map<?, ?>) v).get("version")).toList())
        .satisfiesExactly(
            v -> assertThat(v).matches("2@alice\\.[0-9a-f]{16}"),
            v -> assertThat(v).isEqualTo(put.get("version")));

    assertThat(rafestore("--json", "rm", "k").json()).containsEntry("deleted", true);

    Map<String, Object> keygen =
        run(
                new byte[0],
                Map.of(),
                "--json",
                "keygen",
                "--id",
                "carol",
                "--out",
                dir.resolve("carol.key").toString())
            .json();
    assertThat(keygen).containsEntry("id", "carol").containsKey("publicKey");
  }

  @Test
  void badConfigExitsWithTwoNamingTheFieldAndLine() throws IOException {
    Files.writeString(config, clouds() + "cloud.b.role = data\n");
    Run r = rafestore("get", "k");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.stderr())
        .isEqualTo(
            "rafestore get: "
                + config
                + ":10: cloud.b.role: 'data' is not allowed; allowed: DATA_AND_METADATA,"
                + " METADATA_ONLY\n");
  }

  @AfterEach
  void forgetVerboseLogging() {
    System.clearProperty("org.slf4j.simpleLogger.defaultLogLevel"); // set by --verbose
  }

  @Test
  void verboseAddsTheStackTrace() throws IOException {
    Files.writeString(config, clouds() + "f = 2\n");
    Run r = rafestore("--verbose", "get", "k");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.stderr())
        .contains(":10: f: set twice (first on line 1)")
        .contains("\tat io.rafestore.config.");
  }

  @Test
  void missingConfigFileIsAUsageError() {
    Run r =
        run(
            new byte[0],
            Map.of(),
            "--config",
            dir.resolve("nope.properties").toString(),
            "get",
            "k");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.stderr()).contains("nope.properties does not exist").contains("RAFESTORE_CONFIG");
  }

  @Test
  void configFileComesFromTheEnvironmentWhenNotGiven() {
    Map<String, String> env = new HashMap<>();
    env.put("RAFESTORE_CONFIG", config.toString());
    assertThat(run(utf8("via env"), env, "put", "k", "-").code()).isZero();
    assertThat(run(new byte[0], env, "get", "k").stdout()).isEqualTo("via env");
  }

  @Test
  void usageErrors() throws IOException {
    assertThat(rafestore("put", "k").code()).isEqualTo(ExitCodes.USAGE);
    assertThat(rafestore("frobnicate").code()).isEqualTo(ExitCodes.USAGE);
    assertThat(run(new byte[0], Map.of()).code()).isEqualTo(ExitCodes.USAGE);

    Run missing = rafestore("put", "k", dir.resolve("absent.txt").toString());
    assertThat(missing.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(missing.stderr())
        .isEqualTo("rafestore put: cannot read " + dir.resolve("absent.txt") + ": no such file\n");

    Run badVersion = rafestore("get", "k", "--version", "latest");
    assertThat(badVersion.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(badVersion.stderr()).contains("--version: version 'latest' is not of the form");

    Run badKey = rafestoreIn(utf8("x"), "put", "k".repeat(300), "-");
    assertThat(badKey.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(badKey.stderr()).startsWith("rafestore put: ").contains("300 bytes");

    Run badLimit = rafestore("history", "k", "--limit", "0");
    assertThat(badLimit.code()).isEqualTo(ExitCodes.USAGE);

    Files.writeString(config, clouds()); // no writer
    Run readOnly = rafestoreIn(utf8("x"), "put", "k", "-");
    assertThat(readOnly.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(readOnly.stderr()).contains("has no writer").contains("rafestore keygen");
  }

  @Test
  void initHasNothingToCreateForDirectories() {
    Run init = rafestore("init");
    assertThat(init.code()).as(init.stderr()).isZero();
    assertThat(init.stdout().lines())
        .hasSize(4)
        .allMatch(l -> l.endsWith("(directory): nothing to create"));
    Map<String, Object> json = rafestore("--json", "init").json();
    assertThat(json).containsEntry("ok", true);
    assertThat((List<?>) json.get("clouds")).hasSize(4);
  }

  @Test
  void helpListsTheCommandsAndExitCodes() {
    Run help = run(new byte[0], Map.of(), "--help");
    assertThat(help.code()).isZero();
    assertThat(help.stdout())
        .contains("put", "get", "history", "rm", "keygen", "init")
        .contains("ls", "lsjson", "cat", "cp", "completion", "scrub")
        .contains("3   an integrity problem was found")
        .contains("4   the key or version was not found")
        .contains("5   unavailable");
  }

  @Test
  void missingVersionFailsWithNotFound() {
    rafestoreIn(utf8("v1"), "put", "k", "-");
    Run r = rafestore("get", "k", "--version", "9@alice");
    assertThat(r.code()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(r.stderr()).startsWith("rafestore get: ").doesNotContain("\tat ");
  }

  @Test
  void bytesThatFailVerificationExitWithThree() throws IOException {
    // Above the inline threshold (64 KiB), so the value is stored as data objects.
    rafestoreIn(utf8("precious".repeat(10_000)), "put", "k", "-");
    // Corrupt every stored copy of the value behind the client's back (more than f clouds).
    try (Stream<Path> files = Files.walk(dir.resolve("clouds"))) {
      for (Path p :
          files.filter(Files::isRegularFile).filter(p -> p.toString().contains("/d+/")).toList()) {
        Files.write(p, utf8("tampered"));
      }
    }
    Run r = rafestore("get", "k");
    assertThat(r.code()).as(r.stderr()).isEqualTo(ExitCodes.INTEGRITY);
    assertThat(r.stdoutBytes()).isEmpty();
  }
}
