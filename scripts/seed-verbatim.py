#!/usr/bin/env python3
"""How much of the diet app's HealthKit code (seed §2–§6, without the SwiftUI view) the port keeps verbatim.

The seed is shared/seeds/diet-app-healthkit-spec.md; the port is Examples/DietHealthKit, one file per seed section.
A seed line counts as verbatim when a line of the port, trimmed of surrounding whitespace, equals it, in order: the
count is the matching blocks of a difflib sequence match of the seed's non-blank lines against the port's, so a line
moved elsewhere or reworded counts as changed. Prints "verbatim: X of Y (Z %)" and the changed lines.

    scripts/seed-verbatim.py                       # the seed next to the repository (../shared/seeds/…)
    scripts/seed-verbatim.py --seed PATH --min 90  # exit 1 when under 90 %
    scripts/seed-verbatim.py --extract DIR         # write the seed's five sections to DIR (as the port started)
"""
import argparse
import difflib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SEED = os.path.join(ROOT, "..", "shared", "seeds", "diet-app-healthkit-spec.md")
PORT_DIR = os.path.join(ROOT, "Examples", "DietHealthKit")

# The seed's sections and the port file each one went to (§2's SwiftUI view is left out: Linux has no SwiftUI). §2–§5
# share one file, as the seed's `private let healthStore` needs its extensions in the same file.
SECTIONS = [
    ("2", "HealthKitManager.swift"),
    ("3", "HealthKitManager.swift"),
    ("4", "HealthKitManager.swift"),
    ("5", "HealthKitManager.swift"),
    ("6", "HealthKitSyncService.swift"),
]
FILES = list(dict.fromkeys(name for _, name in SECTIONS))
UI_MARKER = ": View {"


def seed_sections(text):
    """The Swift code of each section §2–§6, as {number: [lines]}, the SwiftUI view left out."""
    sections = {}
    current = None
    in_code = False
    block = []
    for line in text.splitlines():
        heading = re.match(r"^## (\d+)\.", line)
        if heading and not in_code:
            current = heading.group(1)
            continue
        if line.startswith("```"):
            if in_code:
                in_code = False
                if current in dict(SECTIONS) and not any(UI_MARKER in b for b in block):
                    sections.setdefault(current, []).extend(block)
                block = []
            elif line.strip() == "```swift":
                in_code = True
            continue
        if in_code:
            block.append(line)
    return sections


def significant(lines):
    return [line.strip() for line in lines if line.strip()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", default=os.environ.get("DIET_SEED", DEFAULT_SEED))
    parser.add_argument("--port", default=PORT_DIR)
    parser.add_argument("--min", type=float, default=None, help="exit 1 when the share is under this percentage")
    parser.add_argument("--extract", metavar="DIR", help="write the seed's sections to DIR and stop")
    parser.add_argument("--quiet", action="store_true", help="only the summary line")
    args = parser.parse_args()

    try:
        with open(args.seed, encoding="utf-8") as handle:
            sections = seed_sections(handle.read())
    except OSError as error:
        print(f"cannot read the seed: {error}", file=sys.stderr)
        return 2
    missing = [number for number, _ in SECTIONS if number not in sections]
    if missing:
        print(f"the seed has no Swift code in section(s) {', '.join(missing)}", file=sys.stderr)
        return 2

    if args.extract:
        os.makedirs(args.extract, exist_ok=True)
        for name in FILES:
            with open(os.path.join(args.extract, name), "w", encoding="utf-8") as handle:
                for number, file in SECTIONS:
                    if file == name:
                        handle.write("\n".join(sections[number]) + "\n")
        return 0

    seed = []
    port = []
    for number, _ in SECTIONS:
        seed += significant(sections[number])
    for name in FILES:
        try:
            with open(os.path.join(args.port, name), encoding="utf-8") as handle:
                port += significant(handle.read().splitlines())
        except OSError as error:
            print(f"cannot read the port: {error}", file=sys.stderr)
            return 2

    matcher = difflib.SequenceMatcher(a=seed, b=port, autojunk=False)
    kept = [False] * len(seed)
    for block in matcher.get_matching_blocks():
        for index in range(block.a, block.a + block.size):
            kept[index] = True
    verbatim = sum(kept)
    share = 100.0 * verbatim / len(seed)
    print(f"verbatim: {verbatim} of {len(seed)} ({share:.1f} %)")
    if not args.quiet:
        changed = [line for line, ok in zip(seed, kept) if not ok]
        if changed:
            print("changed seed lines:")
            for line in changed:
                print(f"  - {line}")
    if args.min is not None and share < args.min:
        print(f"under the target of {args.min:g} %", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
