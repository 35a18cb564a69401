// SPDX-License-Identifier: Apache-2.0
import Foundation

/// What `make -C gio-module` builds (`make test` does): pathd's GIO module, alone in its
/// directory, and gio-watch, the GLib program the kernel tests load it into
/// (gio-module/README.md).
public enum GIOModuleBuild {
    public static let moduleDirectory = Repository.path("gio-module/build/modules")
    public static let watchExecutable = Repository.path("gio-module/build/gio-watch")

    /// Whether the module was built; the tests that need it are skipped, saying so, when not.
    public static var isBuilt: Bool {
        FileManager.default.fileExists(atPath: moduleDirectory + "/libgiopathd.so")
            && FileManager.default.isExecutableFile(atPath: watchExecutable)
    }

    public static let notBuiltMessage = "the GIO module is not built: run `make -C gio-module` (make test does)"
}
