#!/usr/bin/env bash
# Cuts a release: checks the tree, runs the same gates as .github/workflows/publish.yml, bumps the
# version with `npm version` (commit + tag vX.Y.Z) and pushes main and the tag. Pushing the tag is
# what publishes: publish.yml builds the tagged commit and runs `npm publish --provenance`.
# Nothing here talks to the npm registry.
#
#   npm run release -- patch|minor|major|prerelease|<version> [--dry-run]
#
# --dry-run runs every check and gate and prints the version, commit and push it would make,
# changing nothing. (`npm run release --dry-run -- patch` works too.)
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: npm run release -- <patch|minor|major|prerelease|X.Y.Z[-pre.N]> [--dry-run]"
}

die() {
  echo "release: $*" >&2
  exit 1
}

bump=""
dry_run=false
# `npm run release --dry-run -- …` hands npm's own flag over as npm_config_dry_run.
if [ "${npm_config_dry_run:-}" = true ]; then
  dry_run=true
fi
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=true ;;
    -h | --help)
      usage
      exit 0
      ;;
    -*)
      usage >&2
      exit 2
      ;;
    *)
      if [ -n "$bump" ]; then
        usage >&2
        exit 2
      fi
      bump="$arg"
      ;;
  esac
done
if [ -z "$bump" ]; then
  usage >&2
  exit 2
fi
# The nested `npm version` must really run unless this script says otherwise.
unset npm_config_dry_run

# 1. Git: on main, clean, not behind its upstream.
branch="$(git symbolic-ref --short -q HEAD)" || die "HEAD is detached: check out main"
[ "$branch" = main ] || die "on branch '$branch': releases are cut from main"
if [ -n "$(git status --porcelain)" ]; then
  git status --short >&2
  die "the working tree is not clean: commit or remove the changes above"
fi
upstream="$(git rev-parse --abbrev-ref --symbolic-full-name '@{u}' 2>/dev/null)" ||
  die "main has no upstream: git push -u origin main"
remote="${upstream%%/*}"
echo "release: fetching $remote"
git fetch --quiet --tags "$remote"
behind="$(git rev-list --count 'HEAD..@{u}')"
[ "$behind" = 0 ] || die "main is $behind commit(s) behind $upstream: pull first"

# 2. The next version, computed by npm's own `npm version` on a scratch copy of the manifest.
current="$(node -p "require('./package.json').version")"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cp package.json package-lock.json "$scratch/"
(cd "$scratch" && npm version "$bump" --no-git-tag-version --ignore-scripts >/dev/null) ||
  die "npm version cannot bump $current with '$bump'"
next="$(node -p "require(process.argv[1]).version" "$scratch/package.json")"
tag="v$next"
if git rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
  die "tag $tag already exists"
fi
if [ -n "$(git ls-remote --tags "$remote" "refs/tags/$tag")" ]; then
  die "tag $tag already exists on $remote"
fi
echo "release: $current -> $next (tag $tag)"

# 3. The gates publish.yml runs, so a tag that fails in CI is caught here first.
npm run lint
npm run typecheck
npm test
npm run build

# 4. The tarball holds dist/ and the package's own files only, never sandbox/, scripts/ or test/.
stray="$(npm pack --dry-run --json --ignore-scripts 2>/dev/null | node -e '
  let s = "";
  process.stdin.on("data", (d) => (s += d)).on("end", () => {
    const files = JSON.parse(s)[0].files.map((f) => f.path);
    const allowed = (p) => p.startsWith("dist/") || ["package.json", "README.md", "LICENSE"].includes(p);
    console.log(files.filter((p) => !allowed(p)).join("\n"));
  });
')"
[ -z "$stray" ] || die "the tarball would contain files outside dist/: $stray"

if [ "$dry_run" = true ]; then
  echo "release (dry run): checks and gates passed; nothing was changed. A real run would do:"
  echo "  npm version $bump --tag-version-prefix=v -m 'Release %s'   # commit + tag $tag"
  echo "  git push --atomic $remote HEAD:refs/heads/main refs/tags/$tag"
  exit 0
fi

# 5. Bump, commit and tag, then push both in one go; the tag push starts publish.yml.
npm version "$bump" --tag-version-prefix=v -m "Release %s"
made="$(node -p "require('./package.json').version")"
[ "$made" = "$next" ] || die "npm version made $made, expected $next"
git push --atomic "$remote" HEAD:refs/heads/main "refs/tags/$tag"
echo "release: pushed $tag; .github/workflows/publish.yml now publishes it to npm with provenance"
