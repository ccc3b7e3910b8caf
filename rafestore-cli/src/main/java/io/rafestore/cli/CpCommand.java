package io.rafestore.cli;

import io.rafestore.HistoryPage;
import io.rafestore.KeyNotFoundException;
import io.rafestore.RafeStore;
import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import io.rafestore.config.StoreConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rafestore cp [-r] [-P] SOURCE DEST}: copies files into the store or values out of it,
 * streamed part by part. The store side is written {@code rs:KEY} or {@code rs:PREFIX}.
 */
@Command(
    name = "cp",
    description = {
      "Copies between local files and the store; the store side is written rs:KEY (rs:PREFIX/"
          + " with -r). Values are streamed in parts (memory about partsInFlight x partSize,"
          + " whatever the size), each part verified before it is written locally.",
      "  cp FILE rs:KEY          FILE becomes a new version of KEY (rs:DIR/ appends FILE's name)",
      "  cp -r DIR rs:PREFIX     every file under DIR becomes PREFIX/RELATIVE/PATH",
      "  cp rs:KEY FILE|DIR      the latest value of KEY (into DIR under the key's last segment)",
      "  cp -r rs:PREFIX DIR     every key PREFIX/REST becomes DIR/REST",
      "Downloads go through a temporary file renamed into place once verified."
    })
final class CpCommand extends StoreCommand {
  /** Marks the store side of a copy. */
  static final String REMOTE = "rs:";

  @Parameters(index = "0", paramLabel = "SOURCE", description = "A local path or rs:KEY.")
  String source;

  @Parameters(index = "1", paramLabel = "DEST", description = "A local path or rs:KEY.")
  String dest;

  @Option(
      names = {"-r", "--recursive"},
      description = "Copy a directory tree, or every key under a prefix.")
  boolean recursive;

  @Option(
      names = {"-P", "--progress"},
      description =
          "Show progress on standard error: bytes and files done, rate, time left (every 0.5 s,"
              + " and a final line).")
  boolean progress;

  /** One file to copy: its local path and key (and, downloading, the version to read). */
  private record Item(Path file, String key, long size, VersionInfo version) {}

  private boolean upload;
  private final List<Item> uploads = new ArrayList<>();

  @Override
  void prepare(StoreConfig config) throws Exception {
    boolean srcRemote = source.startsWith(REMOTE);
    boolean dstRemote = dest.startsWith(REMOTE);
    if (srcRemote == dstRemote) {
      throw new UsageException(
          "cp: exactly one of SOURCE and DEST must be in the store (written rs:KEY), got '"
              + source
              + "' and '"
              + dest
              + "'");
    }
    upload = dstRemote;
    if (!upload) {
      return; // the keys are listed once the store is open
    }
    requireWriter(config, "cp");
    Path src = Path.of(source);
    String prefix = dest.substring(REMOTE.length());
    if (Files.isDirectory(src)) {
      if (!recursive) {
        throw new UsageException("cp: " + source + " is a directory (use -r to copy a tree)");
      }
      try (Stream<Path> walk = Files.walk(src)) {
        for (Path p : walk.filter(Files::isRegularFile).sorted().toList()) {
          String rel =
              src.relativize(p).toString().replace(src.getFileSystem().getSeparator(), "/");
          uploads.add(new Item(p, join(prefix, rel), Files.size(p), null));
        }
      }
    } else if (Files.isRegularFile(src)) {
      String key = prefix.isEmpty() || prefix.endsWith("/") ? prefix + src.getFileName() : prefix;
      uploads.add(new Item(src, key, Files.size(src), null));
    } else {
      throw new UsageException("cp: cannot read " + source + ": no such file or directory");
    }
  }

  private static String join(String prefix, String rel) {
    if (prefix.isEmpty() || prefix.endsWith("/")) {
      return prefix + rel;
    }
    return prefix + "/" + rel;
  }

  @Override
  int run(RafeStore store, StoreConfig config) throws Exception {
    List<Item> items = upload ? uploads : downloads(store);
    long total = items.stream().mapToLong(Item::size).sum();
    Progress p =
        new Progress(spec.commandLine().getErr(), progress, total, items.size(), System::nanoTime);
    List<Object> done = new ArrayList<>();
    for (Item item : items) {
      Map<String, Object> o = Json.object();
      o.put("file", item.file().toString());
      o.put("key", item.key());
      o.put("size", item.size());
      if (upload) {
        WriteReceipt r;
        try {
          r = Transfers.upload(store, item.key(), item.file(), p);
        } catch (NoSuchFileException e) {
          throw new UsageException("cp: " + item.file() + " disappeared before it was read", e);
        }
        o.put("version", r.info().version().toString());
        o.put("sha256", r.info().sha256Hex());
      } else {
        Transfers.download(store, item.key(), item.version().version(), item.file(), p);
        o.put("version", item.version().version().toString());
        o.put("sha256", item.version().sha256Hex());
      }
      p.fileDone();
      done.add(o);
    }
    p.finish();
    if (json()) {
      Map<String, Object> o = Json.object();
      o.put("files", done);
      o.put("bytes", p.bytes());
      printJson(o);
    } else {
      out()
          .printf(
              "cp: %d file%s, %s %s%n",
              items.size(),
              items.size() == 1 ? "" : "s",
              Progress.size(total),
              upload ? "written to the store" : "read from the store (verified)");
    }
    return ExitCodes.OK;
  }

  /** What a download copies: the keys and their newest versions, and where each goes. */
  private List<Item> downloads(RafeStore store) throws IOException, UsageException {
    String remote = source.substring(REMOTE.length());
    Path target = Path.of(dest);
    List<Item> items = new ArrayList<>();
    if (!recursive) {
      HistoryPage h = store.blocking().history(remote, Optional.empty(), 1);
      if (h.versions().isEmpty()) {
        throw new KeyNotFoundException(remote, "it has no versions (use -r to copy a prefix)");
      }
      VersionInfo v = h.versions().get(0);
      Path file =
          Files.isDirectory(target) || dest.endsWith("/")
              ? target.resolve(remote.substring(remote.lastIndexOf('/') + 1))
              : target;
      items.add(new Item(file, remote, v.size(), v));
      return items;
    }
    String prefix = remote.isEmpty() || remote.endsWith("/") ? remote : remote + "/";
    Path root = target.toAbsolutePath().normalize();
    List<String> unsafe = new ArrayList<>();
    Listing.walk(
        store,
        prefix,
        page -> {
          for (VersionInfo v : page) {
            String rel = v.key().substring(prefix.length());
            Path file = safeLocalPath(root, rel);
            if (file == null) {
              unsafe.add(v.key());
            } else {
              items.add(new Item(file, v.key(), v.size(), v));
            }
          }
        });
    if (!unsafe.isEmpty()) {
      // A key is data a (trusted) writer chose; it must not place files outside DEST.
      throw new UsageException(
          "cp: "
              + unsafe.size()
              + " key(s) under "
              + source
              + " do not map to a path inside "
              + dest
              + " (empty, '.' or '..' segments, or a trailing '/'): "
              + unsafe.subList(0, Math.min(5, unsafe.size()))
              + "; copy them one by one with 'cp rs:KEY FILE'");
    }
    if (items.isEmpty()) {
      throw new KeyNotFoundException(remote, "no keys under " + source);
    }
    return items;
  }

  /** {@code root/rel} if every segment of {@code rel} is a plain name; null otherwise. */
  static Path safeLocalPath(Path root, String rel) {
    if (rel.isEmpty()) {
      return null;
    }
    Path p = root;
    for (String segment : rel.split("/", -1)) {
      if (segment.isEmpty()
          || segment.equals(".")
          || segment.equals("..")
          || segment.contains("\\")
          || segment.indexOf('\0') >= 0) {
        return null;
      }
      p = p.resolve(segment);
    }
    return p.normalize().startsWith(root) ? p : null;
  }
}
