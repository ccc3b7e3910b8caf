package io.rafestore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code keygen --operator}, {@code certify} and {@code revoke} in-process against four {@code
 * directory} clouds: a certified writer is read by a client that names only the operator key, a
 * revoked one is not, an expired certificate stops its writer, and configuration errors name their
 * line.
 */
class CertifyCliTest {
  @TempDir Path dir;

  record Run(int code, String stdout, String stderr) {}

  private Run run(byte[] stdin, String... args) {
    return run(stdin, Map.of(), args);
  }

  private Run run(byte[] stdin, Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.newCommandLine(new ByteArrayInputStream(stdin), out, err, env).execute(args);
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private Run run(String... args) {
    return run(new byte[0], args);
  }

  private static String clouds() {
    StringBuilder b = new StringBuilder("f = 1\n");
    for (String id : List.of("a", "b", "c", "d")) {
      b.append("cloud.").append(id).append(".type = directory\n");
      b.append("cloud.").append(id).append(".bucket = clouds/").append(id).append('\n');
    }
    return b.toString();
  }

  private Path config(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, text + clouds());
    return p;
  }

  private void keygen(String... args) {
    Run r = run(args);
    assertThat(r.code()).as(r.stderr()).isZero();
  }

  @Test
  void aCertifiedWriterIsReadUntilItIsRevoked() throws IOException {
    Run ops =
        run("keygen", "--operator", "--id", "ops", "--out", dir.resolve("ops.key").toString());
    assertThat(ops.code()).as(ops.stderr()).isZero();
    assertThat(ops.stdout()).contains("operator.ops = ops.pub").contains("rafestore certify");
    keygen("keygen", "--id", "bob", "--out", dir.resolve("bob.key").toString());

    Run certify =
        run(
            "certify",
            "--operator-key",
            dir.resolve("ops.key").toString(),
            "--writer-pub",
            dir.resolve("bob.pub").toString(),
            "--days",
            "30");
    assertThat(certify.code()).as(certify.stderr()).isZero();
    assertThat(certify.stdout()).contains("writer.certificate = bob.cert");
    assertThat(Files.readString(dir.resolve("bob.cert")))
        .contains("rafestore-writer-certificate/1");
    // A certificate is never overwritten.
    Run again =
        run(
            "certify",
            "--operator-key",
            dir.resolve("ops.key").toString(),
            "--writer-pub",
            dir.resolve("bob.pub").toString());
    assertThat(again.code()).isEqualTo(ExitCodes.USAGE);

    Path bob =
        config(
            "bob.properties",
            "writer.id = bob\nwriter.key = bob.key\nwriter.certificate = bob.cert\n");
    Run put =
        run(
            "from bob".getBytes(StandardCharsets.UTF_8),
            "--config",
            bob.toString(),
            "put",
            "shared",
            "-");
    assertThat(put.code()).as(put.stderr()).isZero();

    // The reader names only the operator key, and reads revocation lists on every operation.
    Path reader = config("reader.properties", "operator.ops = ops.pub\ntrustRefresh = 0s\n");
    Run get = run("--config", reader.toString(), "get", "shared");
    assertThat(get.code()).as(get.stderr()).isZero();
    assertThat(get.stdout()).isEqualTo("from bob");

    Run none =
        run(
            "--config",
            reader.toString(),
            "revoke",
            "--operator-key",
            dir.resolve("ops.key").toString());
    assertThat(none.code()).as(none.stderr()).isZero();
    assertThat(none.stdout()).contains("no revocation list");

    Run revoke =
        run(
            "--config",
            reader.toString(),
            "revoke",
            "--operator-key",
            dir.resolve("ops.key").toString(),
            "bob");
    assertThat(revoke.code()).as(revoke.stderr()).isZero();
    assertThat(revoke.stdout()).contains("sequence 1: bob");

    Run gone = run("--config", reader.toString(), "get", "shared");
    assertThat(gone.code()).isEqualTo(ExitCodes.NOT_FOUND);

    Run list =
        run(
            "--config",
            reader.toString(),
            "--json",
            "revoke",
            "--operator-key",
            dir.resolve("ops.key").toString());
    assertThat(MiniJson.object(list.stdout().strip()))
        .containsEntry("sequence", 1L)
        .containsEntry("revoked", List.of("bob"));
  }

  @Test
  void anExpiredCertificateStopsItsWriter() throws IOException {
    keygen("keygen", "--operator", "--id", "ops", "--out", dir.resolve("ops.key").toString());
    keygen("keygen", "--id", "carol", "--out", dir.resolve("carol.key").toString());
    Run certify =
        run(
            "certify",
            "--operator-key",
            dir.resolve("ops.key").toString(),
            "--writer-pub",
            dir.resolve("carol.pub").toString(),
            "--not-before",
            "2020-01-01T00:00:00Z",
            "--not-after",
            "2020-02-01T00:00:00Z");
    assertThat(certify.code()).as(certify.stderr()).isZero();
    // The certificate comes from the environment, as each instance of a deployment would set it.
    Path carol = config("carol.properties", "writer.id = carol\nwriter.key = carol.key\n");
    Run put =
        run(
            "x".getBytes(StandardCharsets.UTF_8),
            Map.of("RAFESTORE_WRITER_CERTIFICATE", "carol.cert"),
            "--config",
            carol.toString(),
            "put",
            "k",
            "-");
    assertThat(put.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(put.stderr()).contains("EXPIRED").contains("2020-02-01T00:00:00Z");
  }

  @Test
  void certifyAndTheConfigurationRefuseMistakes() throws IOException {
    keygen("keygen", "--operator", "--id", "ops", "--out", dir.resolve("ops.key").toString());
    keygen("keygen", "--id", "bob", "--out", dir.resolve("bob.key").toString());
    keygen("keygen", "--id", "dave", "--out", dir.resolve("dave.key").toString());
    Run bad =
        run(
            "certify",
            "--operator-key",
            dir.resolve("ops.key").toString(),
            "--writer-pub",
            dir.resolve("bob.pub").toString(),
            "--not-before",
            "2026-01-02T00:00:00Z",
            "--not-after",
            "2026-01-01T00:00:00Z");
    assertThat(bad.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(bad.stderr()).contains("--not-after");
    Run cert =
        run(
            "certify",
            "--operator-key",
            dir.resolve("ops.key").toString(),
            "--writer-pub",
            dir.resolve("bob.pub").toString());
    assertThat(cert.code()).as(cert.stderr()).isZero();
    // dave cannot carry bob's certificate: the line is named.
    Path dave =
        config(
            "dave.properties",
            "writer.id = dave\nwriter.key = dave.key\nwriter.certificate = bob.cert\n");
    Run put =
        run("x".getBytes(StandardCharsets.UTF_8), "--config", dave.toString(), "put", "k", "-");
    assertThat(put.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(put.stderr()).contains(":3: writer.certificate").contains("certifies writer bob");
    Path noOps = config("r.properties", "operator.ops = missing.pub\n");
    Run get = run("--config", noOps.toString(), "get", "k");
    assertThat(get.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(get.stderr()).contains(":1: operator.ops");
  }
}
