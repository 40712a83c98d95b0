"""`bounded/Warehouse-v0`: the STORE/SHIP/WAIT inventory stream."""

from bounded.envs.warehouse.engine import WarehouseConfig, WarehouseEnv
from bounded.envs.warehouse.expert import WarehouseExpert, state_keeping_reply

__all__ = ["WarehouseConfig", "WarehouseEnv", "WarehouseExpert", "state_keeping_reply"]
