package io.rafestore.cli;

import io.rafestore.RafeStore;
import io.rafestore.RevocationList;
import io.rafestore.config.KeyFiles;
import io.rafestore.config.StoreConfig;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rafestore revoke --operator-key FILE WRITER...}: publishes the operator's next revocation
 * list (the newest on the clouds plus these writers, one sequence higher) on the configured clouds.
 * Without writers, prints the newest list.
 */
@Command(
    name = "revoke",
    description = {
      "Revokes writers certified by an operator: reads the operator's newest revocation list from"
          + " the clouds, adds the WRITER ids, signs it one sequence higher with the operator key"
          + " and stores it on the clouds. Clients stop accepting the writers' logs within their"
          + " trustRefresh (default 1 minute); a revoked writer id stays revoked.",
      "Without WRITER, prints the newest list."
    })
final class RevokeCommand extends StoreCommand {
  /** Time source (tests set it). */
  Clock clock = Clock.systemUTC();

  @Option(
      names = "--operator-key",
      required = true,
      paramLabel = "FILE",
      description = "The operator's private key file (made by 'rafestore keygen --operator').")
  Path operatorKey;

  @Parameters(paramLabel = "WRITER", arity = "0..*", description = "Writer ids to revoke.")
  List<String> writers = new ArrayList<>();

  private KeyFiles.WriterKey op;

  @Override
  void prepare(StoreConfig config) throws Exception {
    for (String w : writers) {
      if (!w.matches("[A-Za-z0-9_-]{1,64}")) {
        throw new UsageException(
            "WRITER: '" + w + "' is not a writer id (1 to 64 characters of A-Z a-z 0-9 - _)");
      }
    }
    op = KeyFiles.readKeyPair(operatorKey);
  }

  @Override
  void customize(RafeStore.Builder builder) {
    // The operator key's own public half: the tool reads and checks lists under it whether or not
    // the configuration trusts the operator.
    builder.trustOperator(op.writerId(), op.keys().getPublic());
  }

  @Override
  int run(RafeStore store, StoreConfig config) throws Exception {
    String id = op.writerId();
    Optional<RevocationList> held = store.blocking().revocations(id);
    if (writers.isEmpty()) {
      print(held.orElse(null), id, false);
      return ExitCodes.OK;
    }
    RevocationList next =
        held.isPresent()
            ? held.get().plus(writers, clock.instant(), op.keys().getPrivate())
            : RevocationList.issue(id, 1, clock.instant(), writers, op.keys().getPrivate());
    store.blocking().publishRevocations(next);
    print(next, id, true);
    return ExitCodes.OK;
  }

  private void print(RevocationList list, String id, boolean published) {
    if (json()) {
      Map<String, Object> o = Json.object();
      o.put("operator", id);
      o.put("sequence", list == null ? 0 : list.sequence());
      o.put("revoked", list == null ? List.of() : List.copyOf(list.revoked()));
      o.put("published", published);
      printJson(o);
    } else if (list == null) {
      out().printf("operator %s has no revocation list on the clouds%n", id);
    } else {
      out()
          .printf(
              "%s revocation list of operator %s, sequence %d: %s%n",
              published ? "published" : "newest",
              id,
              list.sequence(),
              String.join(", ", list.revoked()));
    }
  }
}
