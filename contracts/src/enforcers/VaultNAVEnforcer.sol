// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { CaveatEnforcer } from "./CaveatEnforcer.sol";
import { ExecutionLib, Execution } from "../libraries/ExecutionLib.sol";
import { UsdValuation } from "../libraries/UsdValuation.sol";
import { IERC4626 } from "../interfaces/IERC4626.sol";

/// @title VaultNAVEnforcer
/// @notice Circuit breaker: one redemption may not move more than maxNavBps of an ERC-4626 vault's total
///         assets, so a rogue key cannot drain the vault in a single transaction.
/// @dev Terms: abi.encode(address vault, uint16 maxNavBps), 64 bytes, 1 <= maxNavBps <= 10000.
///      The amount, in the vault's asset units, is summed over all executions of the redemption:
///      to the vault: deposit(assets,..) and withdraw(assets,..) count assets, mint(shares,..) counts
///      previewMint(shares), redeem(shares,..) and share transfer / transferFrom / approve count
///      convertToAssets(shares); to the vault's asset: transfer / transferFrom / approve count the amount,
///      except an approve whose spender is the vault itself, which counts 0: the vault can only pull
///      those assets through a deposit or mint the delegator makes, and that call is counted (so the
///      usual approve + deposit batch counts its assets once, not twice).
///      A share or asset amount of type(uint256).max is unlimited. Everything else counts 0.
///      maxAmount = totalAssets * maxNavBps / 10000 (floored). Stateless: try-mode is allowed.
contract VaultNAVEnforcer is CaveatEnforcer {
    error InvalidTermsLength(uint256 length);
    error InvalidNavBps(uint16 maxNavBps);
    error ExceedsVaultNAV(address vault, uint256 amount, uint256 maxAmount, uint256 totalAssets);

    bytes4 internal constant DEPOSIT = 0x6e553f65; // deposit(uint256,address)
    bytes4 internal constant MINT = 0x94bf804d; // mint(uint256,address)
    bytes4 internal constant WITHDRAW = 0xb460af94; // withdraw(uint256,address,address)
    bytes4 internal constant REDEEM = 0xba087652; // redeem(uint256,address,address)
    bytes4 internal constant APPROVE = 0x095ea7b3; // approve(address,uint256)

    /// @notice Refuses a redemption that moves more than the allowed share of the vault's total assets.
    /// @dev Reverts ExceedsVaultNAV (also when totalAssets is 0 and anything moves), InvalidTermsLength,
    ///      InvalidNavBps or UnsupportedCallType; reverts of the vault's own views bubble up.
    function beforeHook(
        bytes calldata terms,
        bytes calldata,
        bytes32 mode,
        bytes calldata executionCallData,
        bytes32,
        address,
        address
    ) public view override {
        (address vault, uint16 maxNavBps) = _decodeTerms(terms);
        uint256 amount = _amountOf(IERC4626(vault), ExecutionLib.decode(mode, executionCallData));
        if (amount == 0) return;
        uint256 totalAssets = IERC4626(vault).totalAssets();
        uint256 maxAmount = UsdValuation.mulDiv(totalAssets, maxNavBps, 10_000, false);
        if (amount > maxAmount) revert ExceedsVaultNAV(vault, amount, maxAmount, totalAssets);
    }

    /// @notice Decodes terms exactly as the hook does; reverts InvalidTermsLength or InvalidNavBps.
    function getTermsInfo(bytes calldata terms) public pure returns (address vault, uint16 maxNavBps) {
        return _decodeTerms(terms);
    }

    /// @notice The most asset units one redemption may move right now.
    function maxActionAssets(bytes calldata terms) external view returns (uint256) {
        (address vault, uint16 maxNavBps) = _decodeTerms(terms);
        return UsdValuation.mulDiv(IERC4626(vault).totalAssets(), maxNavBps, 10_000, false);
    }

    function _amountOf(IERC4626 vault, Execution[] memory executions) private view returns (uint256 amount) {
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

    function _sharesToAssets(IERC4626 vault, uint256 shares, bool isMint) private view returns (uint256) {
        if (shares == 0) return 0;
        if (shares == type(uint256).max) return type(uint256).max;
        return isMint ? vault.previewMint(shares) : vault.convertToAssets(shares);
    }

    function _decodeTerms(bytes calldata terms) private pure returns (address vault, uint16 maxNavBps) {
        if (terms.length != 64) revert InvalidTermsLength(terms.length);
        (vault, maxNavBps) = abi.decode(terms, (address, uint16));
        if (maxNavBps == 0 || maxNavBps > 10_000) revert InvalidNavBps(maxNavBps);
    }
}
