package io.rafestore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rclone-like commands ({@code ls}, {@code lsjson}, {@code cat}, {@code cp}), dry runs, exit
 * codes per failure kind, PEM keys, configuration discovery and environment overrides, and shell
 * completion; in-process against four {@code directory} clouds (f = 1) with a 1 KiB part size, so
 * that a few KiB already stream in parts.
 */
class CliTransferTest {
  @TempDir Path dir;
  private Path config;

  record Run(int code, byte[] stdoutBytes, String stderr) {
    String stdout() {
      return new String(stdoutBytes, StandardCharsets.UTF_8);
    }
  }

  private Run run(Map<String, String> env, String... args) {
    return runWithStdin(new byte[0], env, args);
  }

  private Run runWithStdin(byte[] stdin, Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    // As Main.main does: only the subcommand named is registered (CliTest registers them all).
    int code =
        Main.newCommandLine(new ByteArrayInputStream(stdin), out, err, env, args).execute(args);
    return new Run(code, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
  }

  private Run rafestore(String... args) {
    return run(Map.of("RAFESTORE_CONFIG", config.toString()), args);
  }

  private static String clouds(Path base) {
    StringBuilder b = new StringBuilder("f = 1\npartSize = 1KiB\npartsInFlight = 2\n");
    for (String id : List.of("a", "b", "c", "d")) {
      b.append("cloud.").append(id).append(".type = directory\n");
      b.append("cloud.").append(id).append(".bucket = ").append(base.resolve("clouds/" + id));
      b.append('\n');
    }
    return b.toString();
  }

  @BeforeEach
  void setUp() throws IOException {
    Run keygen =
        run(Map.of(), "keygen", "--id", "alice", "--out", dir.resolve("alice.key").toString());
    assertThat(keygen.code()).as(keygen.stderr()).isZero();
    config = dir.resolve("rafestore.properties");
    Files.writeString(
        config, "writer.id = alice\nwriter.key = " + dir.resolve("alice.key") + "\n" + clouds(dir));
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static String sha256(Path p) throws IOException {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /** Relative path -> SHA-256 of every regular file under {@code root}. */
  private static Map<String, String> tree(Path root) throws IOException {
    Map<String, String> m = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        m.put(root.relativize(p).toString(), sha256(p));
      }
    }
    return m;
  }

  private Path sampleTree() throws IOException {
    Path src = dir.resolve("photos");
    Files.createDirectories(src.resolve("2026/june"));
    Files.writeString(src.resolve("readme.txt"), "holiday photos\n");
    Files.write(src.resolve("2026/big.bin"), random(5_000, 1)); // 5 parts of 1 KiB
    Files.write(src.resolve("2026/june/beach.jpg"), random(700, 2));
    Files.write(src.resolve("2026/june/empty"), new byte[0]);
    return src;
  }

  @Test
  void cpRecursiveBothWaysKeepsEveryFileAndShowsProgress() throws IOException {
    Path src = sampleTree();
    Run up = rafestore("cp", "-r", "-P", src.toString(), "rs:backup/photos");
    assertThat(up.code()).as(up.stderr()).isZero();
    assertThat(up.stdout()).startsWith("cp: 4 files, ");
    assertThat(up.stderr())
        .contains("Transferred: ")
        .contains("files 4/4")
        .contains("/s, ETA ")
        .endsWith(", done\n");

    Run ls = rafestore("ls", "backup/");
    assertThat(ls.code()).as(ls.stderr()).isZero();
    assertThat(ls.stdout().lines().map(String::strip))
        .containsExactlyInAnyOrder(
            "15 backup/photos/readme.txt",
            "5000 backup/photos/2026/big.bin",
            "700 backup/photos/2026/june/beach.jpg",
            "0 backup/photos/2026/june/empty");

    Path out = dir.resolve("restored");
    Run down = rafestore("cp", "-r", "--progress", "rs:backup/photos", out.toString());
    assertThat(down.code()).as(down.stderr()).isZero();
    assertThat(down.stderr()).contains("files 4/4").endsWith(", done\n");
    assertThat(tree(out)).isEqualTo(tree(src)).hasSize(4);
    // No temporary file is left behind.
    try (Stream<Path> walk = Files.walk(out)) {
      assertThat(walk.map(Path::toString)).noneMatch(n -> n.endsWith(".part"));
    }
  }

  /**
   * put, get, cat and cp move a value 12 times larger than maxValueBytes, the client's bound on a
   * value held whole: its whole-value calls refuse it (write(key, byte[]) and read(key) of a parted
   * value over the bound both fail), so this passes only if every command streams.
   */
  @Test
  void valuesLargerThanMaxValueBytesStreamThroughEveryCommand() throws IOException {
    Files.writeString(config, "maxValueBytes = 4KiB\n", java.nio.file.StandardOpenOption.APPEND);
    byte[] bytes = random(48 * 1024, 11);
    Path file = dir.resolve("large.bin");
    Files.write(file, bytes);
    String sha = sha256(file);

    Run put = rafestore("put", "large", file.toString());
    assertThat(put.code()).as(put.stderr()).isZero();
    assertThat(put.stdout()).contains("49152 bytes, sha256 " + sha);
    Path got = dir.resolve("got.bin");
    Run get = rafestore("get", "large", "-o", got.toString());
    assertThat(get.code()).as(get.stderr()).isZero();
    assertThat(sha256(got)).isEqualTo(sha);
    Run stdout = rafestore("get", "large");
    assertThat(stdout.code()).as(stdout.stderr()).isZero();
    assertThat(stdout.stdoutBytes()).isEqualTo(bytes);
    Run version =
        rafestore("get", "large", "--version", put.stdout().split(" ")[3].replace(",", ""));
    assertThat(version.code()).as(version.stderr()).isZero();
    assertThat(version.stdoutBytes()).isEqualTo(bytes);
    assertThat(rafestore("cat", "large").stdoutBytes()).isEqualTo(bytes);

    // From standard input, whose size is known only at its end (spooled to a temporary file).
    byte[] other = random(20 * 1024, 12);
    Run fromStdin =
        runWithStdin(other, Map.of("RAFESTORE_CONFIG", config.toString()), "put", "piped", "-");
    assertThat(fromStdin.code()).as(fromStdin.stderr()).isZero();
    assertThat(rafestore("get", "piped").stdoutBytes()).isEqualTo(other);
    // A short standard input is written whole.
    Run shortStdin =
        runWithStdin(
            "short".getBytes(StandardCharsets.UTF_8),
            Map.of("RAFESTORE_CONFIG", config.toString()),
            "put",
            "short",
            "-");
    assertThat(shortStdin.code()).as(shortStdin.stderr()).isZero();
    assertThat(rafestore("get", "short").stdout()).isEqualTo("short");

    Run up = rafestore("cp", file.toString(), "rs:copied");
    assertThat(up.code()).as(up.stderr()).isZero();
    Path down = dir.resolve("down.bin");
    Run cpDown = rafestore("cp", "rs:copied", down.toString());
    assertThat(cpDown.code()).as(cpDown.stderr()).isZero();
    assertThat(sha256(down)).isEqualTo(sha);

    // The whole-value path is indeed closed to it: --json without -o reads whole.
    Run whole = rafestore("get", "large", "--json");
    assertThat(whole.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(whole.stderr()).contains("over maxValueBytes");
  }

  @Test
  void cpRecursiveDownloadGoesOnPastACorruptValueAndExitsWithIntegrity() throws IOException {
    Path src = sampleTree();
    assertThat(rafestore("cp", "-r", src.toString(), "rs:backup/photos").code()).isZero();
    // Every stored copy of big.bin's data (its parts) is overwritten: it cannot be read exactly.
    try (Stream<Path> files = Files.walk(dir.resolve("clouds"))) {
      for (Path p :
          files
              .filter(Files::isRegularFile)
              .filter(p -> p.toString().contains("/d+/") && p.toString().contains("big.bin"))
              .toList()) {
        Files.write(p, random((int) Files.size(p), 13));
      }
    }
    Path out = dir.resolve("restored");
    Run down = rafestore("cp", "-r", "-P", "rs:backup/photos", out.toString());
    assertThat(down.code()).as(down.stderr()).isEqualTo(ExitCodes.INTEGRITY);
    assertThat(down.stderr())
        .contains("rafestore cp: rs:backup/photos/2026/big.bin -> ")
        .contains("(exit code 3)")
        .contains("1 of 4 files failed");
    assertThat(down.stdout()).startsWith("cp: 3 files, ");
    Map<String, String> want = tree(src);
    want.remove("2026/big.bin");
    assertThat(tree(out)).isEqualTo(want);
  }

  @Test
  void cpRecursiveUploadGoesOnPastABadFileAndReportsEach() throws IOException {
    Path src = sampleTree();
    // A name that makes a key over 256 bytes: the client refuses that one file.
    Path longName = src.resolve("2026/" + "n".repeat(250));
    Files.writeString(longName, "too long a key");
    Run up = rafestore("cp", "-r", src.toString(), "rs:backup/photos");
    assertThat(up.code()).as(up.stderr()).isEqualTo(ExitCodes.USAGE);
    assertThat(up.stderr())
        .contains("rafestore cp: " + longName + " -> rs:backup/photos/2026/nnn")
        .contains("1 of 5 files failed")
        .contains("the other 4 were copied");
    Path out = dir.resolve("restored");
    assertThat(rafestore("cp", "-r", "rs:backup/photos", out.toString()).code()).isZero();
    Map<String, String> want = tree(src);
    want.remove("2026/" + "n".repeat(250));
    assertThat(tree(out)).isEqualTo(want).hasSize(4);

    assertThat(ExitCodes.moreSerious(ExitCodes.NOT_FOUND, ExitCodes.INTEGRITY))
        .isEqualTo(ExitCodes.INTEGRITY);
    assertThat(ExitCodes.moreSerious(ExitCodes.UNAVAILABLE, ExitCodes.FAILED))
        .isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(ExitCodes.moreSerious(ExitCodes.OK, ExitCodes.USAGE)).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void cpDryRunListsWhatWouldBeCopiedAndCopiesNothing() throws IOException {
    Path src = sampleTree();
    Files.writeString(dir.resolve("v"), "x");
    assertThat(rafestore("cp", dir.resolve("v").toString(), "rs:other").code()).isZero();
    Map<String, String> clouds = tree(dir.resolve("clouds"));
    Run up = rafestore("cp", "-r", "--dry-run", src.toString(), "rs:backup/photos");
    assertThat(up.code()).as(up.stderr()).isZero();
    assertThat(up.stdout())
        .contains("would copy " + src.resolve("2026/big.bin") + " -> rs:backup/photos/2026/big.bin")
        .contains("(5000 bytes)")
        .contains("cp: would copy 4 files, ")
        .contains("(dry run)");
    assertThat(tree(dir.resolve("clouds"))).isEqualTo(clouds);
    assertThat(rafestore("ls").stdout().strip()).isEqualTo("1 other");

    assertThat(rafestore("cp", "-r", src.toString(), "rs:backup/photos").code()).isZero();
    Path out = dir.resolve("restored");
    Run down = rafestore("cp", "-r", "-n", "rs:backup/photos", out.toString());
    assertThat(down.code()).as(down.stderr()).isZero();
    assertThat(down.stdout())
        .contains("would copy rs:backup/photos/readme.txt (version 1@alice.")
        .contains("-> " + out.toAbsolutePath().normalize().resolve("readme.txt"))
        .contains("cp: would copy 4 files");
    assertThat(out).doesNotExist();
  }

  @Test
  void cpSingleFilesBothWays() throws IOException {
    Path file = dir.resolve("report.pdf");
    Files.write(file, random(3_333, 3));
    assertThat(rafestore("cp", file.toString(), "rs:docs/").code()).isZero();
    assertThat(rafestore("cp", file.toString(), "rs:docs/renamed.pdf").code()).isZero();

    Path outDir = Files.createDirectories(dir.resolve("out"));
    Run intoDir = rafestore("cp", "rs:docs/report.pdf", outDir.toString());
    assertThat(intoDir.code()).as(intoDir.stderr()).isZero();
    assertThat(sha256(outDir.resolve("report.pdf"))).isEqualTo(sha256(file));
    Path named = dir.resolve("named.bin");
    assertThat(rafestore("cp", "rs:docs/renamed.pdf", named.toString()).code()).isZero();
    assertThat(sha256(named)).isEqualTo(sha256(file));

    assertThat(rafestore("cp", file.toString(), dir.toString()).code()).isEqualTo(ExitCodes.USAGE);
    assertThat(rafestore("cp", dir.toString(), "rs:x").stderr()).contains("use -r");
    assertThat(rafestore("cp", "rs:docs/absent", named.toString()).code())
        .isEqualTo(ExitCodes.NOT_FOUND);
  }

  @Test
  @SuppressWarnings("unchecked")
  void lsjsonGivesTheNewestVersionOfEveryLiveKey() throws IOException {
    Path f = dir.resolve("v");
    Files.writeString(f, "one");
    rafestore("cp", f.toString(), "rs:notes/a");
    Files.writeString(f, "three");
    rafestore("cp", f.toString(), "rs:notes/a");
    rafestore("cp", f.toString(), "rs:other");
    rafestore("cp", f.toString(), "rs:notes/gone");
    assertThat(rafestore("rm", "notes/gone").code()).isZero();

    Run r = rafestore("lsjson", "notes/");
    assertThat(r.code()).as(r.stderr()).isZero();
    List<Object> list = (List<Object>) MiniJson.parse(r.stdout());
    assertThat(list).hasSize(1);
    Map<String, Object> a = (Map<String, Object>) list.get(0);
    assertThat(a)
        .containsEntry("key", "notes/a")
        .containsEntry("size", 5L)
        .containsEntry("writer", "alice")
        .containsKeys("time", "sha256");
    assertThat((String) a.get("version")).startsWith("2@alice.");

    List<Object> all = (List<Object>) MiniJson.parse(rafestore("lsjson").stdout());
    assertThat(all).hasSize(2);
    assertThat((List<Object>) MiniJson.parse(rafestore("lsjson", "zzz").stdout())).isEmpty();
    assertThat(rafestore("ls", "-l").stdout()).contains("2@alice.").contains(" notes/a");
  }

  @Test
  void catWritesEachValueInTurn() throws IOException {
    Path big = dir.resolve("big");
    byte[] bytes = random(4_100, 4);
    Files.write(big, bytes);
    rafestore("cp", big.toString(), "rs:big");
    Files.writeString(big, "tail");
    rafestore("cp", big.toString(), "rs:small");
    Run cat = rafestore("cat", "big", "small");
    assertThat(cat.code()).as(cat.stderr()).isZero();
    ByteArrayOutputStream want = new ByteArrayOutputStream();
    want.write(bytes);
    want.write("tail".getBytes(StandardCharsets.UTF_8));
    assertThat(cat.stdoutBytes()).isEqualTo(want.toByteArray());

    Run missing = rafestore("cat", "small", "nope");
    assertThat(missing.code()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(missing.stderr()).startsWith("rafestore cat: ");
  }

  @Test
  void exitCodesTellNotFoundFromUnavailableFromIntegrity() throws IOException {
    Path f = dir.resolve("v");
    Files.write(f, random(2_500, 5));
    assertThat(rafestore("cp", f.toString(), "rs:k").code()).isZero();

    assertThat(rafestore("get", "never-written").code()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(rafestore("get", "k", "--version", "7@alice").code()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(rafestore("get", "k", "--version", "x").code()).isEqualTo(ExitCodes.USAGE);

    // Integrity: every stored data object (f+1 copies and more) is overwritten.
    try (Stream<Path> files = Files.walk(dir.resolve("clouds"))) {
      for (Path p :
          files.filter(Files::isRegularFile).filter(p -> p.toString().contains("/d+/")).toList()) {
        Files.write(p, random((int) Files.size(p), 9));
      }
    }
    Run corrupt = rafestore("cp", "rs:k", dir.resolve("out").toString());
    assertThat(corrupt.code()).as(corrupt.stderr()).isEqualTo(ExitCodes.INTEGRITY);
    assertThat(dir.resolve("out")).doesNotExist();
    assertThat(rafestore("get", "k").code()).isEqualTo(ExitCodes.INTEGRITY);

    // Unavailable: on two of four clouds (more than f) no object can be read: each is replaced by
    // a directory of its name (permissions would not stop a test run as root).
    for (String id : List.of("b", "c")) {
      try (Stream<Path> walk = Files.walk(dir.resolve("clouds/" + id))) {
        for (Path p : walk.filter(Files::isRegularFile).toList()) {
          Files.delete(p);
          Files.createDirectory(p);
        }
      }
    }
    Run down = rafestore("get", "k");
    assertThat(down.code()).as(down.stderr()).isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(rafestore("ls").code()).isEqualTo(ExitCodes.UNAVAILABLE);
  }

  @Test
  void dryRunsChangeNothing() throws IOException {
    Path f = dir.resolve("v");
    for (int i = 1; i <= 4; i++) {
      Files.writeString(f, "v" + i);
      assertThat(rafestore("cp", f.toString(), "rs:feed").code()).isZero();
    }
    Map<String, String> before = tree(dir.resolve("clouds"));

    Run rm = rafestore("rm", "--dry-run", "feed");
    assertThat(rm.code()).as(rm.stderr()).isZero();
    assertThat(rm.stdout()).contains("would delete 4 versions").contains("dry run");

    Run gc = rafestore("gc", "feed", "--keep-last", "1", "-n");
    assertThat(gc.code()).as(gc.stderr()).isZero();
    assertThat(gc.stdout()).contains("would collect 3 of 4 versions").contains("1@alice");

    assertThat(tree(dir.resolve("clouds"))).isEqualTo(before);
    assertThat(rafestore("cat", "feed").stdout()).isEqualTo("v4");

    // Cloud a loses everything; a dry-run repair reports it and leaves it lost.
    Path lost = dir.resolve("clouds/a");
    try (Stream<Path> walk = Files.walk(lost)) {
      walk.sorted(java.util.Comparator.reverseOrder())
          .filter(p -> !p.equals(lost))
          .forEach(p -> p.toFile().delete());
    }
    Map<String, String> broken = tree(dir.resolve("clouds"));
    Run repair = rafestore("verify", "--repair", "--dry-run", "feed");
    assertThat(repair.code()).isEqualTo(ExitCodes.INTEGRITY);
    assertThat(repair.stdout()).contains("feed: would repair ").contains("METADATA_MISSING");
    assertThat(tree(dir.resolve("clouds"))).isEqualTo(broken);
    assertThat(rafestore("verify", "--repair", "feed").code()).isZero();
  }

  private static boolean haveOpenssl() {
    try {
      Process p = new ProcessBuilder("openssl", "version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static void openssl(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
  }

  @Test
  void pemKeysAreAcceptedForTheWriterAndForTrustedWriters() throws Exception {
    Path priv = dir.resolve("bob.pem");
    Path pub = dir.resolve("bob.pub.pem");
    if (haveOpenssl()) {
      openssl("genpkey", "-algorithm", "ed25519", "-out", priv.toString());
      openssl("pkey", "-in", priv.toString(), "-pubout", "-out", pub.toString());
    } else {
      // Without openssl, the JDK's own PKCS#8 and X.509 encodings, as keygen --pem writes them.
      Path made = dir.resolve("made.key");
      assertThat(run(Map.of(), "keygen", "--pem", "--id", "x", "--out", made.toString()).code())
          .isZero();
      Files.move(made, priv);
      Files.move(dir.resolve("made.pub"), pub);
    }
    assertThat(Files.readString(priv)).startsWith("-----BEGIN PRIVATE KEY-----");
    assertThat(Files.readString(pub)).startsWith("-----BEGIN PUBLIC KEY-----");

    Path bobConfig = dir.resolve("bob.properties");
    Files.writeString(bobConfig, "writer.id = bob\nwriter.key = bob.pem\n" + clouds(dir));
    Files.setPosixFilePermissions(priv, PosixFilePermissions.fromString("rw-r--r--"));
    Run open = run(Map.of(), "--config", bobConfig.toString(), "ls");
    assertThat(open.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(open.stderr()).contains("chmod 600");
    Files.setPosixFilePermissions(priv, PosixFilePermissions.fromString("rw-------"));

    Path f = dir.resolve("v");
    Files.writeString(f, "signed by a PEM key");
    Run put = run(Map.of(), "--config", bobConfig.toString(), "cp", f.toString(), "rs:shared");
    assertThat(put.code()).as(put.stderr()).isZero();

    assertThat(rafestore("cat", "shared").code()).isEqualTo(ExitCodes.NOT_FOUND);
    Files.writeString(
        config, "trusted.bob = " + pub + "\n", java.nio.file.StandardOpenOption.APPEND);
    Run cat = rafestore("cat", "shared");
    assertThat(cat.code()).as(cat.stderr()).isZero();
    assertThat(cat.stdout()).isEqualTo("signed by a PEM key");

    // A private key where a public one belongs is named as such.
    Files.writeString(
        config, "trusted.carol = " + priv + "\n", java.nio.file.StandardOpenOption.APPEND);
    assertThat(rafestore("ls").stderr()).contains("trusted.carol").contains("PUBLIC KEY");
  }

  @Test
  void keygenPemWritesOwnerOnlyPemFiles() throws IOException {
    Path out = dir.resolve("w.key");
    Run r = run(Map.of(), "keygen", "--pem", "--id", "w", "--out", out.toString());
    assertThat(r.code()).as(r.stderr()).isZero();
    assertThat(Files.readString(out)).startsWith("-----BEGIN PRIVATE KEY-----\n");
    assertThat(Files.readString(dir.resolve("w.pub"))).startsWith("-----BEGIN PUBLIC KEY-----\n");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(out)))
        .isEqualTo("rw-------");
  }

  @Test
  void configIsFoundUnderXdgConfigHomeOrHomeAndOverriddenByTheEnvironment() throws IOException {
    String text = Files.readString(config);
    Path xdg = dir.resolve("xdg");
    Files.createDirectories(xdg.resolve("rafestore"));
    Files.writeString(xdg.resolve("rafestore/rafestore.properties"), text);
    Path f = dir.resolve("v");
    Files.writeString(f, "found it");
    Map<String, String> env = Map.of("XDG_CONFIG_HOME", xdg.toString(), "HOME", "/nonexistent");
    Run put = run(env, "cp", f.toString(), "rs:k");
    assertThat(put.code()).as(put.stderr()).isZero();

    Path home = dir.resolve("home");
    Files.createDirectories(home.resolve(".config/rafestore"));
    Files.writeString(home.resolve(".config/rafestore/rafestore.properties"), text);
    assertThat(run(Map.of("HOME", home.toString()), "cat", "k").stdout()).isEqualTo("found it");

    Run none = run(Map.of("HOME", dir.resolve("empty").toString()), "cat", "k");
    assertThat(none.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(none.stderr()).contains("no configuration file").contains("RAFESTORE_CONFIG");

    // RAFESTORE_<SETTING> overrides the file's setting; an error names the variable.
    Run bad = run(Map.of("HOME", home.toString(), "RAFESTORE_PART_SIZE", "huge"), "cat", "k");
    assertThat(bad.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(bad.stderr()).contains("environment variable RAFESTORE_PART_SIZE: partSize: ");
    Run tooFew = run(Map.of("HOME", home.toString(), "RAFESTORE_F", "2"), "cat", "k");
    assertThat(tooFew.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(tooFew.stderr())
        .contains("environment variable RAFESTORE_F: f: f = 2 needs at least 3f+1");
    // A valid override is used: f = 1 set again from the environment changes nothing.
    assertThat(run(Map.of("HOME", home.toString(), "RAFESTORE_F", "1"), "cat", "k").stdout())
        .isEqualTo("found it");
    Run objective =
        run(Map.of("HOME", home.toString(), "RAFESTORE_OBJECTIVE", "fastest"), "cat", "k");
    assertThat(objective.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(objective.stderr())
        .contains("environment variable RAFESTORE_OBJECTIVE: objective: ");
    assertThat(
            run(Map.of("HOME", home.toString(), "RAFESTORE_OBJECTIVE", "cost"), "cat", "k")
                .stdout())
        .isEqualTo("found it");
    assertThat(ConfigLocator.variableFor("dataCloudsInOrderAdded"))
        .isEqualTo("RAFESTORE_DATA_CLOUDS_IN_ORDER_ADDED");
    assertThat(ConfigLocator.variableFor("writer.key")).isEqualTo("RAFESTORE_WRITER_KEY");
  }

  @Test
  void onlyTheNamedSubcommandIsRegisteredAndInheritedOptionsStillWork() throws IOException {
    assertThat(Main.subcommandNamed(new String[] {"-c", "ls", "--json", "get", "k"}))
        .isEqualTo("get");
    assertThat(Main.subcommandNamed(new String[] {"--help"})).isNull();
    assertThat(Main.subcommandNamed(new String[] {"help", "get"})).isNull();
    assertThat(Main.subcommandNamed(new String[] {"frobnicate"})).isNull();
    Path f = dir.resolve("v");
    Files.writeString(f, "x");
    rafestore("cp", f.toString(), "rs:k");
    Map<String, Object> o = MiniJson.object(rafestore("get", "k", "--json").stdout().strip());
    assertThat(o).containsEntry("key", "k");
    assertThat(rafestore("frobnicate").code()).isEqualTo(ExitCodes.USAGE);
    assertThat(rafestore("help", "get").stdout()).contains("--version");
  }

  @Test
  void completionPrintsABashScript() {
    Run r = run(Map.of(), "completion", "bash");
    assertThat(r.code()).as(r.stderr()).isZero();
    assertThat(r.stdout()).contains("complete -F").contains("lsjson").contains("--dry-run");
    assertThat(run(Map.of(), "completion", "fish").code()).isEqualTo(ExitCodes.USAGE);
  }
}
