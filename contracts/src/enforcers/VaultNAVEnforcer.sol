// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { CaveatEnforcer } from "./CaveatEnforcer.sol";
import { ExecutionLib, Execution } from "../libraries/ExecutionLib.sol";
import { UsdValuation } from "../libraries/UsdValuation.sol";
import { IERC4626 } from "../interfaces/IERC4626.sol";

/// @title VaultNAVEnforcer
/// @notice Circuit breaker: in one transaction, everything a delegator's delegations move through an
///         ERC-4626 vault (summed over every redemption of a redeemDelegations call, and over every such
///         call in the transaction) is at most maxNavBps of the vault's total assets as the first of those
///         redemptions found it. So a rogue key cannot drain the vault in one transaction, whether in one
///         redemption or forty.
/// @dev Terms: abi.encode(address vault, uint16 maxNavBps), 64 bytes, 1 <= maxNavBps <= 10000.
///      The amount, in the vault's asset units, is summed over all executions of the redemption:
///      to the vault: deposit(assets,..) and withdraw(assets,..) count assets, mint(shares,..) counts
///      previewMint(shares), redeem(shares,..) and share transfer / transferFrom / approve count
///      convertToAssets(shares); to the vault's asset: transfer / transferFrom / approve count the amount,
///      except an approve whose spender is the vault itself, which counts 0: the vault can only pull
///      those assets through a deposit or mint the delegator makes, and that call is counted (so the
///      usual approve + deposit batch counts its assets once, not twice).
///      A share or asset amount of type(uint256).max is unlimited. Everything else counts 0.
///      The check runs in beforeAllHook, which the DelegationManager calls for every redemption of a
///      redeemDelegations call before it executes any of them, so every amount is valued on the vault
///      as the transaction found it. The running total and the first totalAssets are kept in transient
///      storage keyed by (DelegationManager, delegator, vault): they last exactly one transaction, and
///      every caveat naming the same vault under the same delegator shares them (each checks the shared
///      total against its own cap). maxAmount = firstTotalAssets * maxNavBps / 10000 (floored). A
///      try-mode execution that fails still counts, so try-mode is allowed.
contract VaultNAVEnforcer is CaveatEnforcer {
    error InvalidTermsLength(uint256 length);
    error InvalidNavBps(uint16 maxNavBps);
    /// @dev `amount` is what this transaction has moved including this redemption; `totalAssets` is the
    ///      vault's total when the transaction's first counted redemption was checked.
    error ExceedsVaultNAV(address vault, uint256 amount, uint256 maxAmount, uint256 totalAssets);

    bytes4 internal constant DEPOSIT = 0x6e553f65; // deposit(uint256,address)
    bytes4 internal constant MINT = 0x94bf804d; // mint(uint256,address)
    bytes4 internal constant WITHDRAW = 0xb460af94; // withdraw(uint256,address,address)
    bytes4 internal constant REDEEM = 0xba087652; // redeem(uint256,address,address)
    bytes4 internal constant APPROVE = 0x095ea7b3; // approve(address,uint256)

    /// @notice Refuses a redemption that would take what the transaction moves through the vault past the
    ///         allowed share of the vault's total assets.
    /// @dev Reverts ExceedsVaultNAV (also when totalAssets is 0 and anything moves), InvalidTermsLength,
    ///      InvalidNavBps or UnsupportedCallType; reverts of the vault's own views bubble up.
    function beforeAllHook(
        bytes calldata terms,
        bytes calldata,
        bytes32 mode,
        bytes calldata executionCallData,
        bytes32,
        address delegator,
        address
    ) public override {
        (address vault, uint16 maxNavBps) = _decodeTerms(terms);
        uint256 amount = _amountOf(IERC4626(vault), ExecutionLib.decode(mode, executionCallData));
        if (amount == 0) return;
        uint256 slot = _transactionSlot(delegator, vault);
        (bool seen, uint256 totalAssets, uint256 moved) = _loadTransaction(slot);
        if (!seen) totalAssets = IERC4626(vault).totalAssets();
        moved = UsdValuation.satAdd(moved, amount);
        uint256 maxAmount = UsdValuation.mulDiv(totalAssets, maxNavBps, 10_000, false);
        if (moved > maxAmount) revert ExceedsVaultNAV(vault, moved, maxAmount, totalAssets);
        _storeTransaction(slot, totalAssets, moved);
    }

    /// @notice Decodes terms exactly as the hook does; reverts InvalidTermsLength or InvalidNavBps.
    function getTermsInfo(
        bytes calldata terms
    ) public pure returns (address vault, uint16 maxNavBps) {
        return _decodeTerms(terms);
    }

    /// @notice The most asset units a transaction that has moved nothing through the vault yet may move.
    function maxActionAssets(
        bytes calldata terms
    ) external view returns (uint256) {
        (address vault, uint16 maxNavBps) = _decodeTerms(terms);
        return UsdValuation.mulDiv(IERC4626(vault).totalAssets(), maxNavBps, 10_000, false);
    }

    function _amountOf(
        IERC4626 vault,
        Execution[] memory executions
    ) private view returns (uint256 amount) {
        address asset; // read lazily: most redemptions never touch the asset directly
        for (uint256 i; i < executions.length; ++i) {
            bytes memory cd = executions[i].callData;
            if (cd.length < 4) continue;
            // forge-lint: disable-next-line(unsafe-typecast) -- the first 4 bytes are the selector (len >= 4 checked)
            bytes4 sel = bytes4(cd);
            uint256 assets;
            if (executions[i].target == address(vault)) {
                if (sel == DEPOSIT || sel == WITHDRAW) {
                    assets = UsdValuation.wordAt(cd, 4);
                } else if (sel == MINT) {
                    assets = _sharesToAssets(vault, UsdValuation.wordAt(cd, 4), true);
                } else if (sel == REDEEM) {
                    assets = _sharesToAssets(vault, UsdValuation.wordAt(cd, 4), false);
                } else {
                    (bool moves, uint256 shares) = UsdValuation.tokenAmountOf(cd);
                    if (!moves) continue;
                    assets = _sharesToAssets(vault, shares, false);
                }
            } else {
                (bool moves, uint256 value) = UsdValuation.tokenAmountOf(cd);
                if (!moves || value == 0) continue;
                if (asset == address(0)) asset = vault.asset();
                if (executions[i].target != asset) continue;
                // forge-lint: disable-next-line(unsafe-typecast) -- the spender word's low 20 bytes
                if (sel == APPROVE && address(uint160(UsdValuation.wordAt(cd, 4))) == address(vault)) continue;
                assets = value;
            }
            amount = UsdValuation.satAdd(amount, assets);
        }
    }

    function _sharesToAssets(
        IERC4626 vault,
        uint256 shares,
        bool isMint
    ) private view returns (uint256) {
        if (shares == 0) return 0;
        if (shares == type(uint256).max) return type(uint256).max;
        return isMint ? vault.previewMint(shares) : vault.convertToAssets(shares);
    }

    /// @dev Three consecutive transient slots: seen (1), the first totalAssets, the running total.
    function _transactionSlot(
        address delegator,
        address vault
    ) private view returns (uint256) {
        return uint256(keccak256(abi.encode(msg.sender, delegator, vault, "VaultNAV.transaction")));
    }

    function _loadTransaction(
        uint256 slot
    ) private view returns (bool seen, uint256 totalAssets, uint256 moved) {
        assembly ("memory-safe") {
            seen := tload(slot)
            totalAssets := tload(add(slot, 1))
            moved := tload(add(slot, 2))
        }
    }

    function _storeTransaction(
        uint256 slot,
        uint256 totalAssets,
        uint256 moved
    ) private {
        assembly ("memory-safe") {
            tstore(slot, 1)
            tstore(add(slot, 1), totalAssets)
            tstore(add(slot, 2), moved)
        }
    }

    function _decodeTerms(
        bytes calldata terms
    ) private pure returns (address vault, uint16 maxNavBps) {
        if (terms.length != 64) revert InvalidTermsLength(terms.length);
        (vault, maxNavBps) = abi.decode(terms, (address, uint16));
        if (maxNavBps == 0 || maxNavBps > 10_000) revert InvalidNavBps(maxNavBps);
    }
}
