import os
import shlex

type Command = str


def build_command(release: str) -> Command:
    return "helm upgrade app ./chart --set image.tag=" + release


def main() -> None:
    release = shlex.quote(os.environ["RELEASE_TAG"])
    os.system(build_command(release))


if __name__ == "__main__":
    main()
