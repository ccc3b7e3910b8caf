package io.rafestore.cli;

import io.rafestore.SigningKeys;
import io.rafestore.config.KeyFiles;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code rafestore keygen --id ID --out FILE [--operator]}: makes a writer (or operator) key pair.
 * Needs no configuration.
 */
@Command(
    name = "keygen",
    description = {
      "Makes a new Ed25519 writer key pair: FILE (the private key, readable by its owner only) and"
          + " FILE with .key replaced by .pub (the public key, for other clients to trust).",
      "With --operator, an operator (root) key: ID is the operator key id, readers trust it with"
          + " operator.ID = FILE.pub, and 'rafestore certify' and 'rafestore revoke' sign with FILE"
          + " (keep it offline).",
      "Existing files are never overwritten."
    })
final class KeygenCommand implements Callable<Integer> {
  @ParentCommand RafeStoreCommand root;

  @Spec CommandSpec spec;

  @Option(
      names = "--id",
      required = true,
      paramLabel = "ID",
      description = "The writer id (1 to 64 of A-Z a-z 0-9 - _).")
  String id;

  @Option(
      names = "--out",
      required = true,
      paramLabel = "FILE",
      description = "The private key file to write, conventionally ID.key.")
  Path out;

  @Option(
      names = "--pem",
      description =
          "Write PEM (PKCS#8 private key, X.509 public key: the forms openssl reads and writes)"
              + " instead of RafeStore key files; PEM holds no writer id, the configuration"
              + " gives it.")
  boolean pem;

  @Option(
      names = "--operator",
      description =
          "Make an operator key (ID is the operator key id) that certifies writers and signs"
              + " revocation lists, instead of a writer key.")
  boolean operator;

  @Override
  public Integer call() throws Exception {
    if (!id.matches("[A-Za-z0-9_-]{1,64}")) {
      throw new UsageException(
          "--id: '"
              + id
              + "' is not "
              + (operator ? "an operator key id" : "a writer id")
              + " (1 to 64 characters of A-Z a-z 0-9 - _)");
    }
    if (operator && pem) {
      throw new UsageException(
          "--operator: an operator key is written as RafeStore key files (they hold its id);"
              + " leave out --pem");
    }
    Path dir = out.toAbsolutePath().getParent();
    if (dir != null && !Files.isDirectory(dir)) {
      throw new UsageException("--out: directory " + dir + " does not exist");
    }
    KeyPair keys = SigningKeys.generate();
    Path pub;
    try {
      pub = pem ? KeyFiles.writePem(out, keys) : KeyFiles.write(out, id, keys);
    } catch (FileAlreadyExistsException e) {
      throw new UsageException(e.getFile() + " already exists; a key is never overwritten", e);
    }
    String publicKey = SigningKeys.encodePublic(keys.getPublic());
    if (root.json) {
      Map<String, Object> o = Json.object();
      o.put("id", id);
      o.put("kind", operator ? "operator" : "writer");
      o.put("privateKeyFile", out.toString());
      o.put("publicKeyFile", pub.toString());
      o.put("publicKey", publicKey);
      spec.commandLine().getOut().println(Json.write(o));
    } else if (operator) {
      spec.commandLine()
          .getOut()
          .printf(
              "wrote %s (operator private key: keep it offline) and %s (public key)%n"
                  + "in the configuration of every client that trusts writers it certifies:%n"
                  + "  operator.%s = %s%n"
                  + "certify a writer:  rafestore certify --operator-key %s --writer-pub W.pub%n"
                  + "revoke a writer:   rafestore revoke --operator-key %s W%n",
              out, pub, id, pub.getFileName(), out, out);
    } else {
      spec.commandLine()
          .getOut()
          .printf(
              "wrote %s (private key, keep it secret) and %s (public key)%n"
                  + "in this writer's configuration:%n"
                  + "  writer.id = %s%n"
                  + "  writer.key = %s%n"
                  + "in the configuration of every client that trusts it:%n"
                  + "  trusted.%s = %s%n"
                  + "or, inline:%n"
                  + "  trusted.%s = base64:%s%n",
              out, pub, id, out.getFileName(), id, pub.getFileName(), id, publicKey);
    }
    spec.commandLine().getOut().flush();
    return ExitCodes.OK;
  }
}
