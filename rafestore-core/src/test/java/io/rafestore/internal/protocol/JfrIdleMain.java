package io.rafestore.internal.protocol;

import static io.rafestore.internal.protocol.ProtocolTest.TABLE1;
import static io.rafestore.internal.protocol.ProtocolTest.utf8;

import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.internal.protocol.TestCloud.Behaviour;

/**
 * Run in a child JVM by {@link JfrEventsTest}: a write and a read, with one corrupt cloud (so a
 * fault is reported too), in a JVM where no recording was ever started.
 */
public final class JfrIdleMain {
  private JfrIdleMain() {}

  public static void main(String[] args) throws Exception {
    Harness h = new Harness(1, 4).rtts(TABLE1);
    h.clouds.get(0).behave(Behaviour.CORRUPT);
    try (RafeStore store = h.client(ProtocolMode.PAPER)) {
      h.run(store.write("feed", utf8("twelve bytes")));
      System.out.println("read=" + h.run(store.read("feed")).utf8());
    }
  }
}
