#!/usr/bin/env python3
"""Compiles (to SIL) the Swift code of the ML Kit guides in ../shared/seeds against this package.

The guides are read at run time (their text is never committed). Each Swift block is compiled
to SIL (type-checking plus the mandatory diagnostics a build runs) on its own, in the Swift 5 and
Swift 6 language modes, with only its import lines
changed (`import MLKit...` / `import Firebase...` become the package's modules; `import
TensorFlowLite` stays: the package has that module). Around each block the check adds what an
app file would have around it: the imports, a main-actor class for the block to live in (the
guides' code runs in a view controller: it uses `self` and `return`), and the variables earlier
blocks of the same guide declared. Nothing inside a block is edited; the one block that shows two
alternatives declaring the same name (004#6) is also checked one alternative at a time.

The package's completion handlers are main-actor isolated on Apple platforms and `@Sendable` on
Linux; the guides are written for Apple platforms, so this check rebuilds the interfaces of
OpenMLKit and OpenMLKitVision with `-DOPENMLKIT_MAIN_ACTOR_COMPLETIONS` (Apple's signatures) into
out/seeds/modules, on top of the debug build (`swift build` must have run).

Blocks that cannot be checked here are listed with the reason (UIKit/AVFoundation/CoreGraphics
types, which Linux lacks, beyond the small UIViewController/UIImage shim below; guide text that is
not valid Swift as written). A block that fails and is not listed fails the check; a listed block
that passes is reported so the list can shrink.

Usage: scripts/check_seeds.py [--seeds ../shared/seeds] [--keep]
"""
import argparse
import glob
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from seed_snippets import snippets  # noqa: E402

PACKAGE_IMPORTS = ["Foundation", "OpenMLKit", "OpenMLKitVision"]
# The AutoML guide (003) runs its model with TensorFlowLiteSwift (its Podfile), whose module is
# TensorFlowLite; the guide's text leaves the import out, as it does the others.
GUIDE_IMPORTS = {"003": ["TensorFlowLite"]}

# ---- clearly marked shim: the only UIKit this check provides on Linux ----
UIKIT_SHIM = """
#if canImport(UIKit)
import UIKit
#else
// SHIM (check-seeds only): the two UIKit types the guides' code lives in or passes around.
@MainActor open class UIViewController { public init() {} }
public final class UIImage {
    public enum Orientation { case up }
    public var imageOrientation: Orientation { .up }
}
#endif
"""

# Variables a block uses that earlier blocks of the same guide declared, by guide.
INTERPRETER_GUIDE = """
    var remoteModel: CustomRemoteModel! = CustomRemoteModel(name: "your_remote_model")
    var localModel: CustomLocalModel! = CustomLocalModel(modelPath: "your_model.tflite")
    var interpreter: ModelInterpreter!
    var ioOptions: ModelInputOutputOptions! = ModelInputOutputOptions()
    var inputs: ModelInputs! = ModelInputs()
    var outputs: ModelOutputs!
    var probabilities: [NSNumber]?
"""
CONTEXT = {
    "000": INTERPRETER_GUIDE,
    "001": INTERPRETER_GUIDE,
    "002": INTERPRETER_GUIDE,
    "003": """
    var remoteModel: CustomRemoteModel! = CustomRemoteModel(name: "your_remote_model")
    var interpreter: Interpreter!
    var inputData = Data()
    var boundingBoxes: UnsafeMutableBufferPointer<Float32>!
    var labels: UnsafeMutableBufferPointer<Float32>!
    var probabilities: UnsafeMutableBufferPointer<Float32>!
""",
    "004": """
    var localModelFilePath = "object_labeler.tflite"
    var localModel: LocalModel! = LocalModel(path: "object_labeler.tflite")
    var remoteModel: CustomRemoteModel! = CustomRemoteModel(name: "your_remote_model")
    var options: CustomObjectDetectorOptions!
    var image: VisionImage!
    var objectDetector: ObjectDetector!
    var objects: [Object] = []
""",
}

# The guides' Swift 6 pattern in our own words (the guide block that shows it, 003#3, does not
# compile as written): a view controller that sets its own properties and a captured local
# inside completion handlers. It must compile with Apple's signatures in both modes, and must NOT
# compile in Swift 6 with Linux's @Sendable ones, which shows the check is strict.
CONTEXT["own"] = CONTEXT["004"] + """
    var status = ""
"""
PATTERN = """
var modelPath: String?
ModelManager.modelManager().getLatestModelFilePath(remoteModel) { path, error in
    guard error == nil, let path = path else { return }
    modelPath = path
}
ModelDownloader.modelDownloader().getModel(
    name: "your_model", downloadType: .localModelUpdateInBackground, conditions: ModelDownloadConditions(),
    progressHandler: { fraction in self.status = "\\(fraction)" }
) { result in
    if case .success(let customModel) = result { modelPath = customModel.path }
}
let labeler = ImageLabeler.imageLabeler(options: CustomImageLabelerOptions(localModel: localModel))
labeler.process(image) { labels, error in
    self.status = labels?.first?.text ?? "\\(String(describing: error))"
}
objectDetector.process(image) { objects, error in
    self.objects = objects ?? []
}
_ = modelPath
"""

# Blocks that cannot be type-checked here, and why. Keys: (guide prefix, block index).
FLATTENED = "flattened onto one line in this copy of the guide, so a `//` comment swallows the rest of the code; the same block is checked from seed 002"
NOT_CHECKABLE = {
    ("000", i): FLATTENED for i in range(6, 12)
} | {
    ("001", i): FLATTENED for i in range(6, 12)
} | {
    ("000", 3): "placeholder `else { /* Handle error. */ }` falls through (not valid Swift as written)",
    ("001", 3): "placeholder `else { /* Handle error. */ }` falls through (not valid Swift as written)",
    ("002", 3): "placeholder `else { /* Handle error. */ }` falls through (not valid Swift as written)",
    ("002", 8): "CoreGraphics (CGImage, CGContext) is not on Linux; also `let image: CGImage = // Your input image` and `&ammp;` are not valid Swift as written",
    ("003", 5): "CoreGraphics (CGImage, CGContext) is not on Linux; also `guard let image: CGImage = // Your input image` is not valid Swift as written",
    ("002", 10): "written for Swift 4: since Swift 5 `try?` flattens optionals (SE-0230), so `output??[0]` does not compile against any library",
    ("003", 3): "passes `modelPath`, a `String?`, to `Interpreter(modelPath:)`, which takes a `String` in TensorFlowLiteSwift too",
    ("004", 6): "declares `let options` twice (two alternatives in one block); each alternative is checked as 004#6a / 004#6b",
    ("004", 7): "`VisionImage(image: UIImage)` passes the type UIImage as a value (a placeholder, not valid Swift)",
    ("004", 8): "UIDeviceOrientation and AVCaptureDevice (UIKit/AVFoundation) are not on Linux",
    ("004", 9): "CMSampleBuffer, UIDevice and AVCaptureDevice (CoreMedia/UIKit/AVFoundation) are not on Linux",
}


def run(cmd, **kwargs):
    return subprocess.run(cmd, capture_output=True, text=True, **kwargs)


def c_module_flags(build):
    flags = []
    for modulemap in sorted(glob.glob(str(build / "*.build" / "module.modulemap"))):
        flags += ["-Xcc", f"-fmodule-map-file={modulemap}"]
    for include in sorted(glob.glob(str(ROOT / "Sources" / "*" / "include"))) + sorted(
        glob.glob(str(ROOT / ".build" / "checkouts" / "*" / "Sources" / "*" / "include"))
    ):
        flags += ["-Xcc", f"-I{include}"]
    return flags


def build_apple_shapes(build, out):
    """Interfaces of OpenMLKit and OpenMLKitVision with Apple's completion signatures."""
    out.mkdir(parents=True, exist_ok=True)
    common = ["-parse-as-library", "-package-name", "openmlkit", "-I", str(out), "-I", str(build / "Modules")]
    common += c_module_flags(build)
    for module in ["OpenMLKit", "OpenMLKitVision"]:
        sources = sorted(str(p) for p in (ROOT / "Sources" / module).rglob("*.swift"))
        cmd = ["swiftc", "-emit-module", "-module-name", module, "-emit-module-path", str(out / f"{module}.swiftmodule"),
               "-DOPENMLKIT_MAIN_ACTOR_COMPLETIONS", "-swift-version", "6"] + common + sources
        result = run(cmd)
        if result.returncode != 0:
            sys.exit(f"check-seeds: cannot build {module} with Apple's signatures:\n{result.stderr[-4000:]}")


def render(snippet, code, guide):
    lines = code.splitlines()
    imports, body = [], []
    for line in lines:
        stripped = line.strip()
        if re.match(r"^import\s+(MLKit|Firebase)\w*\s*$", stripped):
            continue  # replaced by the package's modules
        if re.match(r"^import\s+\w+\s*$", stripped):
            imports.append(stripped)
        else:
            body.append(line)
    text = "\n".join(body)
    returns = "Void"
    epilogue = ""
    if re.search(r"\breturn\s+(true|false)\b", text):
        returns, epilogue = "Bool", "\n        return true"
    elif re.search(r"\breturn\s+nil\b", text):
        returns, epilogue = "Any?", "\n        return nil"
    header = "\n".join(f"import {m}" for m in PACKAGE_IMPORTS + GUIDE_IMPORTS.get(guide, []))
    header += "\n" + "\n".join(sorted(set(imports)))
    tag = re.sub(r"\W", "_", snippet)
    return f"""{header}
{UIKIT_SHIM}
// The guide's view controller and the variables earlier blocks declared.
@MainActor class GuideViewController: UIViewController {{
{CONTEXT[guide]}
}}

extension GuideViewController {{
    // ---- {snippet}: the guide's block, unchanged ----
    func block_{tag}() async throws -> {returns} {{
{text}{epilogue}
    }}
}}
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", default=str(ROOT.parent / "shared" / "seeds"))
    parser.add_argument("--keep", action="store_true", help="keep the generated files under out/seeds")
    args = parser.parse_args()
    build = ROOT / ".build" / "debug"
    if not (build / "Modules" / "OpenMLKitVision.swiftmodule").exists():
        sys.exit("check-seeds: run `swift build` first (no .build/debug/Modules/OpenMLKitVision.swiftmodule)")
    out = ROOT / "out" / "seeds"
    shutil.rmtree(out, ignore_errors=True)
    modules = out / "modules"
    build_apple_shapes(build, modules)
    flags = ["-I", str(modules), "-I", str(build / "Modules")] + c_module_flags(build)

    blocks = []
    for path in sorted(pathlib.Path(args.seeds).glob("*.txt")):
        for snippet in snippets(path):
            guide = path.name[:3]
            name = f"{guide}#{snippet['index']}"
            if (guide, snippet["index"]) == ("004", 6):
                halves = re.split(r"\n(?=// Multiple object detection)", snippet["code"])
                blocks += [(f"{name}a", guide, halves[0], None), (f"{name}b", guide, halves[1], None)]
            blocks.append((name, guide, snippet["code"], NOT_CHECKABLE.get((guide, snippet["index"]))))

    blocks.append(("own#main-actor-pattern", "own", PATTERN, None))

    failures, passed, skipped, surprises = [], 0, [], []
    for name, guide, code, reason in blocks:
        source = out / f"{re.sub(r'[^0-9A-Za-z]', '_', name)}.swift"
        source.write_text(render(name, code, guide))
        outcome = {}
        for mode in ["5", "6"]:
            # -emit-sil runs the mandatory diagnostics a build runs after type-checking (a guard
            # that falls through, a missing return, use before initialisation).
            result = run(["swiftc", "-emit-sil", "-o", os.devnull, "-swift-version", mode, "-parse-as-library"]
                         + flags + [str(source)])
            outcome[mode] = result
        ok = all(r.returncode == 0 for r in outcome.values())
        if reason:
            skipped.append((name, reason))
            if ok and reason != FLATTENED:  # a flattened block can pass by being all comment
                surprises.append(name)
            continue
        if ok:
            passed += 1
        else:
            failures.append((name, source, outcome))

    control = out / "own_main_actor_pattern.swift"
    linux = run(["swiftc", "-emit-sil", "-o", os.devnull, "-swift-version", "6", "-parse-as-library", "-I",
                 str(build / "Modules")] + c_module_flags(build) + [str(control)])
    if linux.returncode == 0 or "main actor-isolated property" not in linux.stderr:
        # It must fail, and for the isolation of the handlers, not for anything else.
        failures.append(("control: the pattern with Linux's @Sendable handlers in Swift 6", control, {"6": linux}))
    else:
        print("check-seeds: control: with Linux's @Sendable completion handlers the pattern fails in Swift 6, as it must")
    print(f"check-seeds: {passed} blocks compile (type-check and SIL diagnostics) in Swift 5 and Swift 6")
    print(f"check-seeds: {len(skipped)} blocks cannot be checked here:")
    for name, reason in skipped:
        print(f"  {name}: {reason}")
    for name in surprises:
        print(f"check-seeds: {name} is listed as not checkable but type-checks now; take it off the list")
    for name, source, outcome in failures:
        for mode, result in outcome.items():
            if result.returncode != 0:
                errors = [line for line in result.stderr.splitlines() if ": error:" in line]
                print(f"check-seeds: FAILED {name} (Swift {mode}), {source}:")
                for line in errors[:20]:
                    print(f"  {line}")
    if not args.keep and not failures:
        shutil.rmtree(out, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
