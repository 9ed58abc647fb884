"""``python -m kvscope`` (and the ``kvscope`` script): the kvscope command line, the native
binary's own code, with its text, JSON and exit codes."""
import sys

from . import command_line


def main() -> None:
    sys.exit(command_line(sys.argv[1:]))


if __name__ == "__main__":
    main()
