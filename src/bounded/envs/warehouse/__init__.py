"""`bounded/Warehouse-v0`: the STORE/SHIP/WAIT inventory stream."""

from bounded.envs.warehouse.engine import WarehouseConfig, WarehouseEnv
from bounded.envs.warehouse.expert import WarehouseExpert

__all__ = ["WarehouseConfig", "WarehouseEnv", "WarehouseExpert"]
