package io.rafestore.cli;

import io.rafestore.RafeStore;
import io.rafestore.config.StoreConfig;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code rafestore cat KEY...}: writes the latest values of the keys to standard output. */
@Command(
    name = "cat",
    description = {
      "Writes the latest value of each KEY to standard output, one after another, streamed part"
          + " by part: each part is verified against its signed hash before its bytes are"
          + " written, and the whole value's SHA-256 is checked at its end.",
      "A failure stops at that key (the bytes of the keys before it have been written)."
    })
final class CatCommand extends StoreCommand {
  @Parameters(paramLabel = "KEY", arity = "1..*", description = "The keys.")
  List<String> keys = new ArrayList<>();

  @Override
  int run(RafeStore store, StoreConfig config) throws Exception {
    out().flush();
    OutputStream raw = root.stdout();
    for (String key : keys) {
      try (InputStream in = Transfers.open(store, key, null)) {
        in.transferTo(raw);
      }
      raw.flush();
    }
    return ExitCodes.OK;
  }
}
