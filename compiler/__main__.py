"""`python -m warpforge ...`: the `warpforge` command (`warpforge.driver.cli`)."""

from warpforge.driver.cli import main

if __name__ == "__main__":
    main()
