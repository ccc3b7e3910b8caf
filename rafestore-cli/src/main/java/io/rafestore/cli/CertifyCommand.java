package io.rafestore.cli;

import io.rafestore.SigningKeys;
import io.rafestore.WriterCertificate;
import io.rafestore.config.KeyFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code rafestore certify}: issues a writer certificate signed by an operator key. Needs no
 * configuration and contacts no cloud: the writer stores its certificate on the clouds itself,
 * before its first write ({@code writer.certificate} in its configuration).
 */
@Command(
    name = "certify",
    description = {
      "Issues a certificate, signed by an operator key, that lets writer ID write with its public"
          + " key from --not-before to --not-after: clients that trust the operator key"
          + " (operator.OPID in their configuration) accept its writes without naming it.",
      "The writer names the file in its configuration (writer.certificate = FILE) and stores it"
          + " on the clouds before its first write. Existing files are never overwritten."
    })
final class CertifyCommand implements Callable<Integer> {
  /** The default validity, from --not-before. */
  static final Duration DEFAULT_VALIDITY = Duration.ofDays(90);

  @ParentCommand RafeStoreCommand root;

  @Spec CommandSpec spec;

  /** Time source (tests set it). */
  Clock clock = Clock.systemUTC();

  @Option(
      names = "--operator-key",
      required = true,
      paramLabel = "FILE",
      description = "The operator's private key file (made by 'rafestore keygen --operator').")
  Path operatorKey;

  @Option(
      names = "--writer-pub",
      required = true,
      paramLabel = "FILE",
      description =
          "The writer's public key file (made by 'rafestore keygen'; it names the writer id).")
  Path writerPub;

  @Option(
      names = "--writer",
      paramLabel = "ID",
      description = "The writer id, for a PEM public key (a RafeStore key file names its own).")
  String writerId;

  @Option(
      names = "--not-before",
      paramLabel = "INSTANT",
      description = "Start of validity, ISO-8601 (2026-01-31T00:00:00Z); default now.")
  String notBefore;

  @Option(
      names = "--not-after",
      paramLabel = "INSTANT",
      description = "End of validity, ISO-8601; default --not-before plus --days.")
  String notAfter;

  @Option(
      names = "--days",
      paramLabel = "N",
      description = "Validity in days when --not-after is not given (default 90).")
  Integer days;

  @Option(
      names = "--out",
      paramLabel = "FILE",
      description = "The certificate file to write (default: ID.cert beside --writer-pub).")
  Path out;

  @Override
  public Integer call() throws Exception {
    if (notAfter != null && days != null) {
      throw new UsageException("--days and --not-after: give one of them");
    }
    if (days != null && (days < 1 || days > 3650)) {
      throw new UsageException("--days must be 1 to 3650, was " + days);
    }
    Instant now = clock.instant();
    Instant from = notBefore == null ? now : instant("--not-before", notBefore);
    Instant to =
        notAfter == null
            ? from.plus(days == null ? DEFAULT_VALIDITY : Duration.ofDays(days))
            : instant("--not-after", notAfter);
    if (!to.isAfter(from)) {
      throw new UsageException(
          "--not-after (" + to + ") must be after --not-before (" + from + ")");
    }
    KeyFiles.WriterKey op = KeyFiles.readKeyPair(operatorKey);
    KeyFiles.TrustedKey writer =
        writerId == null
            ? KeyFiles.readPublicKey(writerPub)
            : KeyFiles.readPublicKey(writerPub, writerId);
    if (writerId != null && !writer.writerId().equals(writerId)) {
      throw new UsageException(
          "--writer " + writerId + ": " + writerPub + " is writer " + writer.writerId() + "'s key");
    }
    PublicKey key = writer.publicKey();
    WriterCertificate cert =
        WriterCertificate.issue(
            writer.writerId(), key, from, to, now, op.writerId(), op.keys().getPrivate());
    Path file =
        out != null ? out : writerPub.toAbsolutePath().resolveSibling(writer.writerId() + ".cert");
    try {
      Files.writeString(
          file,
          cert.toText(),
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE);
    } catch (FileAlreadyExistsException e) {
      throw new UsageException(file + " already exists; a certificate is never overwritten", e);
    }
    if (root.json) {
      Map<String, Object> o = Json.object();
      o.put("writer", cert.writerId());
      o.put("operator", cert.operatorKeyId());
      o.put("notBefore", cert.notBefore().toString());
      o.put("notAfter", cert.notAfter().toString());
      o.put("publicKey", SigningKeys.encodePublic(key));
      o.put("file", file.toString());
      spec.commandLine().getOut().println(Json.write(o));
    } else {
      spec.commandLine()
          .getOut()
          .printf(
              "wrote %s: writer %s, operator %s, valid %s to %s%n"
                  + "in writer %s's configuration:%n"
                  + "  writer.certificate = %s%n"
                  + "readers need only:%n"
                  + "  operator.%s = %s.pub%n",
              file,
              cert.writerId(),
              cert.operatorKeyId(),
              cert.notBefore(),
              cert.notAfter(),
              cert.writerId(),
              file.getFileName(),
              cert.operatorKeyId(),
              cert.operatorKeyId());
    }
    spec.commandLine().getOut().flush();
    return ExitCodes.OK;
  }

  private static Instant instant(String option, String text) throws UsageException {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new UsageException(
          option + ": '" + text + "' is not an ISO-8601 instant (like 2026-01-31T00:00:00Z)", e);
    }
  }
}
