package io.rafestore.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command over the four real emulators (MinIO, fake-gcs-server, Azurite, Redis) that {@code
 * scripts/emulators.sh} runs, configured the way a user would: endpoints in the file, secrets by
 * {@code env:} reference. Skipped unless the emulators' variables are set ({@code scripts/test.sh}
 * sets them; by hand: {@code eval "$(scripts/emulators.sh env)"}). RAFESTORE_S3_CREDENTIALS is made
 * from the access and secret key by this module's Surefire configuration.
 */
class EmulatorsCliTest {
  private static final List<String> NEEDED =
      List.of(
          "RAFESTORE_S3_ENDPOINT",
          "RAFESTORE_GCS_ENDPOINT",
          "RAFESTORE_AZURE_CONNECTION_STRING",
          "RAFESTORE_REDIS_URI");

  @TempDir Path dir;

  /** Skips the calling test, visibly (counted as skipped), when the emulators are not set up. */
  private static void assumeEmulators() {
    for (String name : NEEDED) {
      String value = System.getenv(name);
      assumeTrue(
          value != null && !value.isBlank(),
          name + " is not set: run scripts/test.sh, or eval \"$(scripts/emulators.sh env)\"");
    }
    String s3 = System.getenv("RAFESTORE_S3_CREDENTIALS");
    assumeTrue(
        s3 != null && s3.indexOf(':') > 0 && !s3.contains("${"),
        "RAFESTORE_S3_CREDENTIALS (access:secret) is not set");
  }

  private record Run(int code, byte[] stdout, String stderr) {}

  private Run run(byte[] stdin, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.newCommandLine(new ByteArrayInputStream(stdin), out, err, Map.of()).execute(args);
    return new Run(code, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
  }

  /** A configuration of the four emulators under namespace {@code ns}, writer emu. */
  private Path writeConfig(String ns) throws java.io.IOException {
    Path config = dir.resolve("emulators.properties");
    Files.writeString(
        config,
        String.join(
            "\n",
            "f = 1",
            "writer.id = emu",
            "writer.key = emu.key",
            "cloud.minio.type = s3",
            "cloud.minio.endpoint = " + System.getenv("RAFESTORE_S3_ENDPOINT"),
            "cloud.minio.bucket = " + ns,
            "cloud.minio.region = us-east-1",
            "cloud.minio.credentials = env:RAFESTORE_S3_CREDENTIALS",
            "cloud.minio.option.pathStyle = true",
            "cloud.gcs.type = gcs",
            "cloud.gcs.endpoint = " + System.getenv("RAFESTORE_GCS_ENDPOINT"),
            "cloud.gcs.bucket = " + ns,
            "cloud.gcs.option.anonymous = true",
            "cloud.gcs.option.projectId = rafestore-test",
            "cloud.azurite.type = azure",
            "cloud.azurite.bucket = " + ns,
            "cloud.azurite.credentials = env:RAFESTORE_AZURE_CONNECTION_STRING",
            "cloud.redis.type = redis",
            "cloud.redis.endpoint = " + System.getenv("RAFESTORE_REDIS_URI"),
            "cloud.redis.bucket = " + ns + "/",
            ""));
    return config;
  }

  @Test
  void benchRunsTheProfileAroundTheEmulatorsAndLeavesNothingBehind() throws Exception {
    assumeEmulators();
    String ns = "bench-" + UUID.randomUUID();
    assertThat(
            run(new byte[0], "keygen", "--id", "emu", "--out", dir.resolve("emu.key").toString())
                .code())
        .isZero();
    String c = writeConfig(ns).toString();
    Path out = dir.resolve("bench-out");
    Run bench =
        run(
            new byte[0],
            "bench",
            "--clouds-from",
            c,
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
    String stdout = new String(bench.stdout(), StandardCharsets.UTF_8);
    assertThat(bench.code()).as(bench.stderr() + stdout).isZero();
    assertThat(bench.stderr()).contains("p0 is minio (s3)").contains("p3 is redis (redis)");
    assertThat(stdout).contains("PAPER").contains("DEPSKY_A");
    // Each cell deleted and purged its key: no key is left on the clouds.
    Run verify = run(new byte[0], "-c", c, "--json", "verify");
    assertThat(verify.code()).as(verify.stderr()).isZero();
    assertThat(new String(verify.stdout(), StandardCharsets.UTF_8)).contains("\"keys\":[]");
  }

  @Test
  void putGetHistoryAndRmOverTheFourEmulators() throws Exception {
    assumeEmulators();
    String ns = "cli-" + UUID.randomUUID();
    Path key = dir.resolve("emu.key");
    assertThat(run(new byte[0], "keygen", "--id", "emu", "--out", key.toString()).code()).isZero();
    Path config = writeConfig(ns);
    String c = config.toString();

    Run init = run(new byte[0], "-c", c, "init");
    assertThat(init.code()).as(init.stderr()).isZero();
    assertThat(new String(init.stdout(), StandardCharsets.UTF_8))
        .contains("minio (s3): bucket " + ns + " ready")
        .contains("gcs (gcs): bucket " + ns + " ready");

    byte[] value = new byte[1024 * 1024 + 17];
    new Random(3).nextBytes(value);
    Run put = run(value, "-c", c, "put", "blobs/1", "-");
    assertThat(put.code()).as(put.stderr()).isZero();
    Run put2 = run("small".getBytes(StandardCharsets.UTF_8), "-c", c, "put", "blobs/1", "-");
    assertThat(put2.code()).as(put2.stderr()).isZero();
    // Each put's log reached all four clouds before its command returned (the close grace), not
    // only the first n - f: verify finds nothing missing.
    Run verify = run(new byte[0], "-c", c, "verify", "blobs/1");
    String verified = new String(verify.stdout(), StandardCharsets.UTF_8);
    assertThat(verify.code()).as(verified + verify.stderr()).isZero();
    assertThat(verified).doesNotContain("MISSING");

    Run get = run(new byte[0], "-c", c, "get", "blobs/1", "--version", "1@emu");
    assertThat(get.code()).as(get.stderr()).isZero();
    assertThat(get.stdout()).isEqualTo(value);
    assertThat(
            new String(
                run(new byte[0], "-c", c, "get", "blobs/1").stdout(), StandardCharsets.UTF_8))
        .isEqualTo("small");

    Map<String, Object> history =
        MiniJson.object(
            new String(
                    run(new byte[0], "-c", c, "--json", "history", "blobs/1").stdout(),
                    StandardCharsets.UTF_8)
                .strip());
    assertThat((List<?>) history.get("versions")).hasSize(2);

    assertThat(run(new byte[0], "-c", c, "rm", "blobs/1").code()).isZero();
    assertThat(run(new byte[0], "-c", c, "get", "blobs/1").code()).isEqualTo(ExitCodes.NOT_FOUND);
  }
}
